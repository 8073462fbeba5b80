import { z } from "zod";
import { Quota } from "./quota.js";

/** The place sources a search can read (docs/api.md, "Sources"); which are on is the server's setting. */
export const PlaceSourceName = z.enum(["local", "google", "overpass"]);
export type PlaceSourceName = z.infer<typeof PlaceSourceName>;

/** The radius of a search that gives none. */
export const DEFAULT_RADIUS_KM = 5;

/** Addition: the orders `sort` (and the CLI's `--sort`) accept; relevance is the default. */
export const SearchSort = z.enum(["relevance", "distance", "name"]);
export type SearchSort = z.infer<typeof SearchSort>;

/** The body of the lead search (endpoint 1). Every bound is enforced (400 names the field). */
export const SearchInput = z
  .strictObject({
    location: z.string().trim().min(1).max(300),
    keywords: z.string().trim().min(1).max(200),
    radiusKm: z.number().int().min(1).max(100).nullable().optional(),
    pageToken: z.string().min(1).max(8192).nullable().optional(),
    locationPlaceId: z.string().min(1).max(512).nullable().optional(),
    lat: z.number().min(-90).max(90).nullable().optional(),
    lng: z.number().min(-180).max(180).nullable().optional(),
    sort: SearchSort.nullable()
      .optional()
      .meta({
        description:
          "Addition (docs/api.md): the order of the leads across all pages. relevance (default): category matches first, then name matches, then weaker ones, each by distance; distance: nearest first; name: by name.",
      }),
    /** Addition: crawl the leads' websites again instead of answering from the enrichment cache. */
    refresh: z.boolean().optional(),
    sources: z
      .array(PlaceSourceName)
      .min(1)
      .max(3)
      .optional()
      .meta({ description: "Addition (docs/api.md, \"Sources\"): the place sources to read; default: the server's OUTREACH_PLACES_SOURCES. A source the server has not configured is a 400 naming it." }),
  })
  .meta({ id: "SearchInput" });
export type SearchInput = z.infer<typeof SearchInput>;

export const Socials = z
  .object({
    linkedin: z.string().max(2048).optional(),
    facebook: z.string().max(2048).optional(),
    twitter: z.string().max(2048).optional(),
    instagram: z.string().max(2048).optional(),
  })
  .meta({ id: "Socials" });
export type Socials = z.infer<typeof Socials>;

export const BusinessSource = z
  .object({
    url: z.string().max(2048).regex(/^https?:\/\//i, "must start with http:// or https://"),
    title: z.string().max(300),
    /** Addition (docs/api.md, "Website enrichment"): the source is a linked PDF (an imprint, a contact sheet). */
    pdf: z.boolean().optional(),
    /** Addition (decisions.md, "Enrichment in a browser"): the page was read as a browser showed it, after its scripts ran. */
    rendered: z.boolean().optional(),
  })
  .meta({ id: "BusinessSource" });
export type BusinessSource = z.infer<typeof BusinessSource>;

/** Why website enrichment of a lead failed (an addition, docs/api.md "Website enrichment"). */
export const EnrichmentErrorCode = z.enum(["robots", "timeout", "tls", "http_status", "network", "blocked", "too_large", "not_text", "redirects", "bad_url", "unreadable", "undeliverable", "error"]);
export type EnrichmentErrorCode = z.infer<typeof EnrichmentErrorCode>;
export const EnrichmentError = z
  .object({
    code: EnrichmentErrorCode,
    message: z.string().max(500),
    /** The HTTP status, for `http_status`. */
    status: z.number().int().min(100).max(999).optional(),
  })
  .meta({ id: "EnrichmentError" });
export type EnrichmentError = z.infer<typeof EnrichmentError>;

/** A lead. Producers clean their values by the lead-value rules (docs/api.md, "Lead values") rather than emit invalid ones. */
export const Lead = z
  .object({
    placeId: z.string().min(1).max(512),
    name: z.string().min(1).max(300),
    address: z.string().min(1).max(500),
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    website: z.string().max(2048).nullable(),
    domain: z.string().max(253).nullable(),
    phone: z.string().max(64).nullable(),
    rating: z.number().min(0).max(5).nullable(),
    categories: z.array(z.string().min(1).max(80)).max(30),
    email: z.string().max(254).nullable(),
    socials: Socials.nullable(),
    businessSummary: z.string().max(1200).optional(),
    businessSources: z.array(BusinessSource).max(4).optional(),
    enrichmentPending: z.boolean().optional(),
    /** Addition: the lead's website could not be read, and why (absent when it was read or not tried). */
    enrichmentError: EnrichmentError.optional(),
    sources: z
      .array(z.string().min(1).max(40))
      .max(5)
      .optional()
      .meta({ description: "Addition (docs/api.md, \"Sources\"): the sources this lead was found in (local, google, overpass); a lead merged from several names each." }),
  })
  .meta({ id: "Lead" });
export type Lead = z.infer<typeof Lead>;

export const Center = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) });

/** Addition: what the search understood the location as. */
export const ResolvedLocation = z
  .object({
    name: z.string().max(300).meta({ description: "The place the location resolved to, as the data names it (\"Marienplatz, München\", \"EC4M 9BR\", \"Portland, OR, US\")." }),
    kind: z
      .enum(["coordinates", "place-id", "postcode", "street", "square", "district", "locality", "city"])
      .meta({ description: "What kind of place it is: coordinates as sent, a place ID, a postcode, a street, a square, a district (suburb, quarter, neighbourhood), another named place, or a city." }),
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
  })
  .meta({ id: "ResolvedLocation" });
export type ResolvedLocation = z.infer<typeof ResolvedLocation>;

/** The answer of the lead search: one page. */
export const SearchResult = z
  .object({
    center: Center,
    leads: z.array(Lead),
    nextPageToken: z.string().nullable(),
    quota: Quota.optional(),
    enrichmentRetryToken: z.string().nullable().optional(),
    warnings: z
      .array(z.string().max(1000))
      .max(20)
      .optional()
      .meta({ description: "Addition (docs/api.md, \"Sources\"): what the caller should know, e.g. a source that failed while another answered, a request budget that ran out, an empty places index." }),
    requests: z
      .record(z.string(), z.number().int().min(0))
      .optional()
      .meta({ description: "Addition (docs/api.md, \"Sources\"): requests this page sent to outside place services, by source (Google bills per request); 0 when answered from a cache." }),
    resolvedLocation: ResolvedLocation.nullable()
      .optional()
      .meta({ description: "Addition (docs/api.md): the place the location resolved to, its name and centre (the same point as center)." }),
    didYouMean: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          "Addition (docs/api.md): set when the keywords as typed found nothing and a word one edit away was used instead (the leads are those of these keywords); null otherwise.",
      }),
  })
  .meta({ id: "SearchResult" });
export type SearchResult = z.infer<typeof SearchResult>;

/** An NDJSON `progress` line of the search: the leads so far (the page, then each enrichment snapshot). */
export const SearchProgress = SearchResult.partial().required({ leads: true });
export type SearchProgress = z.infer<typeof SearchProgress>;

/** Endpoint 2 body. */
export const EnrichmentRetryInput = z.strictObject({ token: z.uuid() }).meta({ id: "EnrichmentRetryInput" });
export const EnrichmentRetryResult = z.object({ leads: z.array(Lead) }).meta({ id: "EnrichmentRetryResult" });
