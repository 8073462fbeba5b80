/**
 * A key for comparing names typed by people with names in the data: lower case,
 * diacritics folded (NFKD, combining marks removed: "München" → "munchen"), whitespace
 * collapsed and trimmed. Used for the localities index and for geocoding look-ups, so
 * the importer (write side) and the geocoder (read side) must agree on it exactly.
 */
export function normaliseKey(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}
