import { distanceKm } from "../core/geo.js";
import type { Lead } from "../core/schemas/lead.js";
import { csvText, type CsvCell } from "./csv.js";
import type { Column } from "./output.js";

/**
 * One flat row per lead, the same columns for every CSV export (search, `--complete`,
 * retry), so the files can be concatenated and `outreach contacts import` reads them all:
 * socials and sources flattened into columns, categories joined with "; ".
 */
export const LEAD_CSV_COLUMNS = [
  "place_id", "name", "address", "lat", "lng", "distance_km", "website", "domain", "phone", "email", "rating", "categories",
  "linkedin", "facebook", "twitter", "instagram", "business_summary", "enrichment_pending", "enrichment_error",
  "source_1_url", "source_1_title", "source_2_url", "source_2_title", "source_3_url", "source_3_title", "source_4_url", "source_4_title",
] as const;

/** Why the lead's website could not be read: `code: message` (the importer ignores the column). */
function enrichmentErrorCell(lead: Lead): string {
  return lead.enrichmentError ? `${lead.enrichmentError.code}: ${lead.enrichmentError.message}` : "";
}

function leadRow(lead: Lead, center: { lat: number; lng: number } | undefined): CsvCell[] {
  const sources = lead.businessSources ?? [];
  const src = (i: number) => [sources[i]?.url, sources[i]?.title];
  return [
    lead.placeId, lead.name, lead.address, lead.lat, lead.lng, center ? distanceKm(center, lead).toFixed(2) : "", lead.website, lead.domain,
    lead.phone, lead.email, lead.rating, lead.categories.join("; "),
    lead.socials?.linkedin, lead.socials?.facebook, lead.socials?.twitter, lead.socials?.instagram,
    lead.businessSummary, lead.enrichmentPending === undefined ? "" : String(lead.enrichmentPending), enrichmentErrorCell(lead),
    ...src(0), ...src(1), ...src(2), ...src(3),
  ];
}

/** CSV with a header row, through the CLI's one CSV layer (`csv.ts`). `center` fills `distance_km` when known. */
export function leadsToCsv(leads: readonly Lead[], center?: { lat: number; lng: number }): string {
  return csvText([[...LEAD_CSV_COLUMNS], ...leads.map((lead) => leadRow(lead, center))]);
}

/** The table a terminal shows. */
export const LEAD_TABLE_COLUMNS: ReadonlyArray<Column<Lead>> = [
  { header: "name", value: (l) => l.name },
  { header: "email", value: (l) => l.email },
  { header: "website", value: (l) => l.website },
  { header: "socials", value: (l) => Object.keys(l.socials ?? {}).join(",") },
  { header: "pending", value: (l) => (l.enrichmentPending ? "yes" : "") },
];
