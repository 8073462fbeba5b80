import { randomUUID } from "node:crypto";
import type { StreamLine } from "../core/contract/index.js";

/**
 * Stands in for a line's `data.leads` while the rest of the line is serialised. The
 * random part is made once per process: no value a line carries can spell it.
 */
const LEADS_PLACEHOLDER = `\u0000leads:${randomUUID()}`;
const PLACEHOLDER_JSON = JSON.stringify(LEADS_PLACEHOLDER);

/**
 * The lines of one NDJSON stream, each the JSON of a line and a newline. A lead search's
 * progress and complete lines carry the same array of leads when nothing changed them in
 * between (no enrichment, every site cached; the search never changes an array it has
 * sent, enrichment reports fresh ones): that array's JSON is made once per stream and
 * reused, byte for byte what `JSON.stringify` gives, keys in the same order. The leads
 * are most of what a line costs (20 of them), and they were serialised twice per search.
 */
export function ndjsonLines(): (line: StreamLine) => string {
  let lastLeads: readonly unknown[] | undefined;
  let lastJson = "";
  return (line) => {
    const data = (line as { data?: unknown }).data;
    const leads = typeof data === "object" && data !== null ? (data as { leads?: unknown }).leads : undefined;
    if (!Array.isArray(leads)) return JSON.stringify(line) + "\n";
    if (leads !== lastLeads) {
      lastLeads = leads;
      lastJson = JSON.stringify(leads);
    }
    const text = JSON.stringify({ ...line, data: { ...(data as object), leads: LEADS_PLACEHOLDER } });
    const at = text.indexOf(PLACEHOLDER_JSON);
    return text.slice(0, at) + lastJson + text.slice(at + PLACEHOLDER_JSON.length) + "\n";
  };
}
