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

/** Letters that NFKD leaves whole, as their usual Latin transliteration (lower case). */
const UNDECOMPOSED: Readonly<Record<string, string>> = { ß: "ss", ø: "oe", æ: "ae", œ: "oe", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i", ħ: "h", ŋ: "n" };
const UNDECOMPOSED_LETTERS = /[ßøæœłđðþıħŋ]/g;
/** Transliterated umlauts and å: "ae", "oe", "ue", "aa" read as the plain vowel. */
const DIGRAPHS = /ae|oe|ue|aa/g;

/**
 * The form in which the lead search and the geocoder compare words: `normaliseKey`, then
 * the transliterations people type when their keyboard lacks the letter folded the same
 * way as the letter itself ("Baeckerei" = "Bäckerei" = "backerei", "Muenchen" = "München",
 * "Aalborg" = "Ålborg", "Tromsø" = "Tromsoe"). Applied to both sides (the index and the
 * query), so the rare English word it also touches ("blue" → "blu") still finds itself.
 */
export function foldForSearch(value: string): string {
  // ASCII text (most of it) needs no Unicode normalisation: the costly part of an import's fold.
  const folded = NON_ASCII.test(value)
    ? normaliseKey(value).replace(UNDECOMPOSED_LETTERS, (c) => UNDECOMPOSED[c]!)
    : value.toLowerCase().replace(/\s+/g, " ").trim();
  return folded.replace(DIGRAPHS, (d) => d[0]!);
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Trim and collapse runs of whitespace (including newlines) to one space. */
export function collapseWhitespace(value: string): string {
  // Most values (every one of an import's hundred million) are clean already: a scan of
  // their characters costs less than the regular expression and the copies.
  return isCollapsed(value) ? value : value.replace(/\s+/g, " ").trim();
}

/** Whether a character code is whitespace as `\s` and `trim` see it (Unicode's spaces and line ends). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** No whitespace but single spaces between other characters: what `collapseWhitespace` leaves as it is. */
function isCollapsed(value: string): boolean {
  let afterSpace = true; // a leading space is not collapsed
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 32) {
      if (afterSpace) return false;
      afterSpace = true;
    } else if (isSpace(c)) return false;
    else afterSpace = false;
  }
  return value.length === 0 || !afterSpace;
}

/** Whether a string is empty or whitespace only (`value.trim() === ""`, without the copy). */
export function isBlank(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (!isSpace(value.charCodeAt(i))) return false;
  return true;
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
