import { stringify } from "csv-stringify/sync";
import type { Lead } from "../core/schemas/lead.js";
import type { Column } from "./output.js";

/** One flat row per lead, the same columns for CSV exports of searches and retries. */
export const LEAD_CSV_COLUMNS: ReadonlyArray<[string, (lead: Lead) => string | number | boolean | null | undefined]> = [
  ["placeId", (l) => l.placeId],
  ["name", (l) => l.name],
  ["address", (l) => l.address],
  ["lat", (l) => l.lat],
  ["lng", (l) => l.lng],
  ["website", (l) => l.website],
  ["domain", (l) => l.domain],
  ["phone", (l) => l.phone],
  ["rating", (l) => l.rating],
  ["categories", (l) => l.categories.join(";")],
  ["email", (l) => l.email],
  ["linkedin", (l) => l.socials?.linkedin],
  ["facebook", (l) => l.socials?.facebook],
  ["twitter", (l) => l.socials?.twitter],
  ["instagram", (l) => l.socials?.instagram],
  ["businessSummary", (l) => l.businessSummary],
  ["businessSources", (l) => l.businessSources?.map((s) => s.url).join(" ")],
  ["enrichmentPending", (l) => l.enrichmentPending ?? false],
];

/** CSV with a header row (RFC 4180 quoting); cells that a spreadsheet would run as formulas are defused. */
export function leadsToCsv(leads: readonly Lead[]): string {
  const defuse = (v: string | number | boolean | null | undefined) => {
    if (v === null || v === undefined) return "";
    const s = String(v);
    return typeof v === "string" && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  };
  return stringify([LEAD_CSV_COLUMNS.map(([h]) => h), ...leads.map((lead) => LEAD_CSV_COLUMNS.map(([, get]) => defuse(get(lead))))]);
}

/** The table a terminal shows. */
export const LEAD_TABLE_COLUMNS: ReadonlyArray<Column<Lead>> = [
  { header: "name", value: (l) => l.name },
  { header: "email", value: (l) => l.email },
  { header: "website", value: (l) => l.website },
  { header: "socials", value: (l) => Object.keys(l.socials ?? {}).join(",") },
  { header: "pending", value: (l) => (l.enrichmentPending ? "yes" : "") },
];
