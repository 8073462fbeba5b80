/**
 * Text helpers shared by the places importers and the geocoder: both must turn
 * "München", "MUNCHEN" and " münchen " into the same key, or a locality built at import
 * time would never be found at search time.
 */

/** Lower case, diacritics folded (NFKD then combining marks removed), whitespace collapsed, trimmed. */
export function normaliseKey(value: string): string {
  return value
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/ß/g, "ss")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** Trim and collapse runs of whitespace (including newlines) to one space. */
export function collapseWhitespace(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/** Cut a string to at most `max` characters without splitting a surrogate pair. */
export function capLength(value: string, max: number): string {
  if (value.length <= max) return value;
  let cut = value.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut.trimEnd();
}

/** Levenshtein distance: "did you mean" for flags typed and places named. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
