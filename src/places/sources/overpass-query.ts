import type { LatLng } from "../../core/geo.js";
import type { QuerySlot } from "../search/keywords.js";
import { BUSINESS_KEYS } from "../vocabulary/place-tags.js";

/** An Overpass QL string literal: backslash and double quote escaped. */
const literal = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
/** A regular expression matching `s` literally. */
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * One tag term ("amenity=restaurant") as an Overpass filter that matches it the way the
 * importer reads tags (`tagValues`: `;`-separated values, case aside), so a live result
 * and an imported one agree on what is a restaurant.
 */
function termFilter(term: string): string {
  const at = term.indexOf("=");
  const key = term.slice(0, at);
  const value = term.slice(at + 1).replace(/_/g, "[ _]");
  return `[${literal(key)}~${literal(`^(.*;)? *${value} *(;.*)?$`)},i]`;
}

/** Elements with any business key: the importer's notion of a business (names alone are not). */
const ANY_BUSINESS = `[~${literal(`^(${BUSINESS_KEYS.join("|")})$`)}~"."]`;

/**
 * The Overpass query of a search (docs/api.md, "Overpass"): the same category vocabulary
 * as the local search decides what each keyword slot means. Per slot, the union of
 * - its meanings, each a conjunction of tag terms (`amenity=restaurant` + `cuisine=pizza`);
 * - for a category word, places of its hosts whose name holds the word ("Pizzeria Roma");
 * - for a word that is no category (a name, a brand), businesses whose name or brand holds it;
 * and the slots intersected (every keyword must match, as locally), each element once
 * with its centre and tags.
 */
export function overpassQuery(slots: readonly QuerySlot[], center: LatLng, radiusKm: number, timeoutSeconds: number): string {
  const around = `(around:${Math.round(radiusKm * 1000)},${center.lat.toFixed(6)},${center.lng.toFixed(6)})`;
  const sets = slots.map((slot, i) => {
    const statements: string[] = [];
    // The forms that count as the keyword itself ("pizza", "pizz": Pizzeria), as the local search reads names.
    const words = [...new Set(slot.exactWords.length ? slot.exactWords : [slot.text])].map(escapeRegex).join("|");
    if (slot.concept) {
      for (const alternative of slot.concept.alternatives) statements.push(`nwr${alternative.map(termFilter).join("")}${around};`);
      for (const host of slot.concept.hosts) statements.push(`nwr${termFilter(host)}["name"~${literal(words)},i]${around};`);
    } else {
      statements.push(`nwr${ANY_BUSINESS}["name"~${literal(words)},i]${around};`);
      statements.push(`nwr${ANY_BUSINESS}["brand"~${literal(words)},i]${around};`);
    }
    return `(${statements.join(" ")})->.s${i};`;
  });
  const result = slots.length === 1 ? ".s0 out center tags;" : `nwr${slots.map((_, i) => `.s${i}`).join("")};\nout center tags;`;
  return `[out:json][timeout:${timeoutSeconds}];\n${sets.join("\n")}\n${result}`;
}
