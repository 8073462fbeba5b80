/**
 * A coarse check that a model wrote in the language asked for: the function words of a few
 * common languages are counted, and a text whose words are clearly another known language's
 * (at least 3 hits and twice those of the language asked for) is flagged. It catches the
 * common failure, an English answer to a German brief; it never judges a language it does
 * not know, nor a text too short to tell (fewer than 8 words).
 */

const FUNCTION_WORDS: Record<string, readonly string[]> = {
  en: ["the", "and", "you", "your", "we", "our", "with", "for", "this", "that", "is", "are", "have", "will", "to", "of"],
  de: ["der", "die", "das", "und", "sie", "ihr", "ihre", "ihnen", "wir", "unser", "unsere", "für", "mit", "ist", "sind", "nicht", "ein", "eine", "zu", "auf", "den", "dem", "ich"],
  fr: ["le", "les", "et", "vous", "votre", "nous", "notre", "pour", "avec", "est", "sont", "une", "des", "du", "pas", "ce", "je"],
  es: ["el", "los", "las", "y", "usted", "su", "nosotros", "nuestro", "para", "con", "es", "son", "una", "del", "por", "que", "muy"],
  it: ["il", "gli", "voi", "vostro", "noi", "nostro", "per", "con", "è", "sono", "una", "che", "di", "non"],
  nl: ["het", "en", "u", "uw", "wij", "onze", "voor", "met", "zijn", "een", "van", "niet", "wat", "ook"],
  pt: ["os", "você", "seu", "sua", "nós", "nosso", "para", "com", "é", "são", "uma", "do", "da", "não"],
};

const NAMES: Record<string, readonly string[]> = {
  en: ["english"],
  de: ["german", "deutsch"],
  fr: ["french", "français", "francais"],
  es: ["spanish", "español", "espanol", "castellano"],
  it: ["italian", "italiano"],
  nl: ["dutch", "nederlands"],
  pt: ["portuguese", "português", "portugues"],
};

const LABELS: Record<string, string> = { en: "English", de: "German", fr: "French", es: "Spanish", it: "Italian", nl: "Dutch", pt: "Portuguese" };

/** `de`, `de-AT`, `German`, `Deutsch` → `de`; undefined for a language this check does not know. */
export function languageCode(language: string): string | undefined {
  const text = language.trim().toLowerCase();
  const code = text.split(/[-_]/)[0]!;
  if (FUNCTION_WORDS[code]) return code;
  return Object.keys(NAMES).find((c) => NAMES[c]!.includes(text));
}

/** The known language `text` is clearly written in instead of `expected`, or undefined. */
export function otherLanguage(text: string, expected: string): string | undefined {
  const want = languageCode(expected);
  if (!want) return undefined;
  const words = text
    .replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g, " ")
    .replace(/\]\([^)]*\)|https?:\/\/\S+/g, " ")
    .toLowerCase()
    .match(/\p{L}+/gu) ?? [];
  if (words.length < 8) return undefined;
  const hits = (code: string) => words.filter((w) => FUNCTION_WORDS[code]!.includes(w)).length;
  const own = hits(want);
  let best: { code: string; n: number } | undefined;
  for (const code of Object.keys(FUNCTION_WORDS)) {
    if (code === want) continue;
    const n = hits(code);
    if (!best || n > best.n) best = { code, n };
  }
  return best && best.n >= 3 && best.n >= 2 * Math.max(own, 1) ? LABELS[best.code] : undefined;
}
