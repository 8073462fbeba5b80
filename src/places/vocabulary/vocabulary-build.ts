import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { foldForSearch } from "../../core/text.js";
import { OSM_LABELS } from "./category-labels.js";
import { FOOD_HOSTS, isBusinessKey, isInfrastructure, isQualifierKey, tagTerm } from "./place-tags.js";

/**
 * Builds the lead search's category vocabulary (see `category-vocabulary.ts`) from the
 * installed packages: every name, alias and search term of every business preset of the
 * OpenStreetMap iD editor's tagging schema (`@openstreetmap/id-tagging-schema`, ≈ 130
 * languages; what of it is read is extracted at build time, `scripts/tagging-schema.js`), the translated names of its cuisine values, and our own English labels
 * (`category-labels.ts`). Brand names of the name-suggestion-index are left out: a word
 * such as "Starbucks" (a search term of iD's coffee shop preset) means that brand, which
 * the search finds by name, not every coffee shop.
 *
 * A few seconds of work (≈ 15 MB of translations): the result is cached (see
 * `loadCategoryVocabulary`).
 */

/** Bump when the build changes what it produces: cached vocabularies of an older format are rebuilt. */
export const VOCABULARY_FORMAT = 7;

/** The vocabulary in its serialised form: concepts once, phrases pointing at them. */
export interface VocabularyData {
  /** Packages and format it was built from; a cache with another stamp is stale. */
  stamp: string;
  /** [alternatives (each a conjunction of tag terms), hosts (business terms that may also match by name)]. */
  concepts: Array<[alternatives: string[][], hosts: string[]]>;
  /**
   * The phrases (folded words, one space) one per line in code-unit order, and per
   * phrase, in parallel arrays: its concept's index, its strength (votes for its best
   * meaning) and its standing (2: one of our curated English labels, 1: some language's
   * name for it, 0: only a search term). Every process that searches reads them: parallel
   * arrays of numbers parse several times faster than an array per phrase, and sorted
   * phrases are searched in place (no map of 57,000 entries to build).
   */
  phrases: string;
  concept: number[];
  strength: number[];
  standing: Array<0 | 1 | 2>;
}

interface TranslatedPreset {
  name?: string;
  aliases?: string[] | string;
  terms?: string[] | string;
}
/** One language of the extract (`scripts/tagging-schema.js`): its presets' words and its cuisine field's options. */
interface TranslatedLanguage {
  presets: Record<string, TranslatedPreset>;
  cuisine: Record<string, unknown>;
}
interface SchemaPreset {
  tags?: Record<string, string>;
  addTags?: Record<string, string>;
}
interface Meaning {
  alternatives: string[][];
  hosts: readonly string[];
  /** A catch-all preset ("Shop": `shop=*`): a phrase that means it is no category word. */
  generic: boolean;
  /**
   * A preset narrowed by a tag the index does not hold (`hairdresser=barber`,
   * `government=prosecutor`): it stands for its broader business tag, a guess at what
   * its words mean, so its votes count half.
   */
  broadened?: boolean;
}

/**
 * Votes for the meanings of one phrase, one per language: in each language a phrase
 * means the presets it names there (name or alias) or, if it names none, those it is a
 * search term of. A phrase such as "bar" names `amenity=bar` in dozens of languages and
 * `amenity=cafe` in one (Italian); search terms are loose (Swedish lists "pizzeria" under
 * every kind of restaurant), so they only speak where no name does, and a language's
 * name weighs NAME_VOTE, its term 1 ("caffè" names a café in Italian, and is a term of
 * coffee shops in four variants of English).
 */
interface Votes {
  languages: number;
  curated: boolean;
}
const NAME_VOTE = 2;
/** One of our own English labels counts as much as a name in this many languages. */
const CURATED_VOTE = 10;
/** A meaning is kept when its votes are more than this share of the best meaning's. */
const KEEP_SHARE = 0.5;

/** Function words of the languages users most often type that some language's presets use as a name ("the" is French "thé"). */
const STOPWORDS = new Set([
  "the", "and", "for", "with", "von", "der", "die", "das", "und", "les", "des", "avec", "del", "della", "con", "per", "och", "med", "van", "het", "een",
]);

function listOf(value: string[] | string | undefined): string[] {
  if (!value) return [];
  return Array.isArray(value) ? value : value.split(",");
}

/** The folded words of a phrase joined by one space (the vocabulary's key). */
export function phraseKey(text: string): string {
  return foldForSearch(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(" ");
}

/**
 * Where an installed package is, found through what it lets us resolve: the
 * name-suggestion-index its CommonJS entry (`dist/js/nsi.cjs`; its `exports` map names no data file).
 */
const PACKAGE_ENTRIES = {
  "name-suggestion-index": "name-suggestion-index",
} as const;
export function packageDir(name: keyof typeof PACKAGE_ENTRIES): string {
  let dir = dirname(createRequire(import.meta.url).resolve(PACKAGE_ENTRIES[name]));
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return dir;
}
function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * The iD tagging schema's extract (`scripts/tagging-schema.js`, run by `npm run build` and
 * `prepare`): `dist/tagging-schema/`, found from the compiled module and from its source.
 * The package itself is no dependency (its engines field asks for a Node outreach does not need).
 */
function taggingSchemaDir(): string {
  const candidates = inDist("tagging-schema/");
  const found = candidates.find((dir) => existsSync(join(dir, "source.json")));
  if (!found) throw new Error(`the iD tagging schema extract is missing (looked in ${candidates.join(", ")}): run \`npm run build\``);
  return found;
}

/** Where `relative` of dist/ is, seen from the compiled module (dist/places/vocabulary/) and from its source (src/places/vocabulary/). */
function inDist(relative: string): string[] {
  return [new URL(`../../${relative}`, import.meta.url), new URL(`../../../dist/${relative}`, import.meta.url)].map((url) => fileURLToPath(url));
}

/**
 * The vocabulary as built at build time (`scripts/tagging-schema.js`, after the compile:
 * `npm run build`, `prepare`, the tests' global setup), shipped in the package: a fresh
 * machine's first search reads it instead of building for seconds. Its file name in dist/.
 */
export const BUILT_VOCABULARY_FILE = "category-vocabulary.json";

/** The built vocabulary's data when it is there and its stamp is that of the installed packages; else undefined (then it is built, and cached). */
export function readBuiltVocabulary(): VocabularyData | undefined {
  const stamp = installedVocabularyStamp();
  for (const file of inDist(BUILT_VOCABULARY_FILE)) {
    let data: VocabularyData;
    try {
      data = JSON.parse(readFileSync(file, "utf8")) as VocabularyData;
    } catch {
      continue; // not built there (running from the sources without a build), or unreadable
    }
    // Built from other package versions or by another format (a build older than an upgrade): not used.
    if (data.stamp === stamp) return data;
  }
  return undefined;
}
function taggingSchemaVersion(): string {
  return (JSON.parse(readFileSync(join(taggingSchemaDir(), "source.json"), "utf8")) as { version: string }).version;
}

let stampOfThisProcess: string | undefined;

/**
 * The stamp of the installed packages: what a cached vocabulary must carry to be used.
 * Read once per process (packages do not change under a running process): finding the
 * packages and reading their versions costs tens of microseconds, and the importer asks
 * for the vocabulary once per place (it was 60 % of a list import's time).
 */
export function installedVocabularyStamp(): string {
  stampOfThisProcess ??= `${VOCABULARY_FORMAT}|id-tagging-schema ${taggingSchemaVersion()}|nsi ${packageVersion(packageDir("name-suggestion-index"))}`;
  return stampOfThisProcess;
}

/**
 * What a preset means: each business tag (its own and those iD adds) with its qualifiers;
 * undefined for non-businesses and infrastructure. A cuisine-qualified preset ("Pizzeria",
 * `amenity=restaurant` + `cuisine=pizza`) means that cuisine wherever it is served (see
 * `cuisineOf`), so it is not built here.
 */
function presetMeaning(preset: SchemaPreset): Meaning | undefined {
  const tags = preset.tags ?? {};
  const keys = Object.keys(tags).filter(isBusinessKey);
  if (keys.length === 0) return undefined;
  if (keys.every((k) => tags[k] === "*")) return { alternatives: [], hosts: [], generic: true };
  const business = new Set<string>();
  for (const [key, value] of Object.entries({ ...tags, ...(preset.addTags ?? {}) })) {
    if (!isBusinessKey(key) || value === "*" || value.includes("|")) continue;
    if (isInfrastructure(key, value)) return undefined;
    business.add(tagTerm(key, value));
  }
  if (business.size === 0) return undefined;
  const qualifiers = Object.entries(tags)
    .filter(([key, value]) => isQualifierKey(key) && value !== "*")
    .map(([key, value]) => tagTerm(key, value));
  const broadened = Object.keys(tags).some((key) => !isBusinessKey(key) && !isQualifierKey(key));
  return { alternatives: withSynonyms([...business].map((b) => [b, ...qualifiers])), hosts: [...business], generic: false, broadened };
}

/** The cuisine a preset is defined by (`amenity/restaurant/pizza` → "pizza"), if any. */
function cuisineOf(preset: SchemaPreset): string | undefined {
  const value = preset.tags?.cuisine;
  return value && value !== "*" && !value.includes("|") ? value : undefined;
}

/**
 * Tags that mean one thing, hand-picked from the OSM wiki: a place tagged with any of a
 * group is what a word for any of them means. Some are the same thing tagged two ways
 * (`office=physician` is a doctor's practice, tagged `amenity=doctors` nowadays), some a
 * maker and a seller that users look for as one (a jeweller's workshop and shop), and an
 * ice cream parlour is tagged as a shop, an amenity or a cuisine.
 */
const TAG_SYNONYMS: ReadonlyArray<readonly string[]> = [
  ["amenity=doctors", "healthcare=doctor", "office=physician"],
  ["amenity=dentist", "healthcare=dentist"],
  ["amenity=pharmacy", "healthcare=pharmacy"],
  ["amenity=ice_cream", "shop=ice_cream", "cuisine=ice_cream"],
  ["shop=optician", "craft=optician"],
  ["shop=jewelry", "craft=jeweller"],
];

/** Alternatives with every synonym of their terms added as alternatives of their own. */
function withSynonyms(alternatives: string[][]): string[][] {
  const out = [...alternatives];
  for (const alternative of alternatives) {
    for (const [i, term] of alternative.entries()) {
      for (const group of TAG_SYNONYMS) {
        if (!group.includes(term)) continue;
        for (const synonym of group) {
          if (synonym === term) continue;
          const replaced = alternative.map((t, j) => (j === i ? synonym : t));
          if (!out.some((a) => a.join("&") === replaced.join("&"))) out.push(replaced);
        }
      }
    }
  }
  return out;
}

/** The name-suggestion-index's data file, inside its package. */
export const NSI_DATA = "dist/json/nsi.min.json";

/** The brand names of the name-suggestion-index (folded): phrases that name a brand, not a category. */
function brandNames(): Set<string> {
  const nsi = JSON.parse(readFileSync(join(packageDir("name-suggestion-index"), NSI_DATA), "utf8")) as {
    nsi: Record<string, { items: Array<{ displayName?: string; matchNames?: string[]; tags?: Record<string, string> }> }>;
  };
  const names = new Set<string>();
  for (const [path, category] of Object.entries(nsi.nsi)) {
    if (!path.startsWith("brands/")) continue;
    for (const item of category.items) {
      for (const name of [item.displayName, item.tags?.brand, item.tags?.name, ...(item.matchNames ?? [])]) if (name) names.add(phraseKey(name));
    }
  }
  return names;
}

export function buildVocabulary(): VocabularyData {
  const schema = taggingSchemaDir();
  const presets = JSON.parse(readFileSync(join(schema, "presets.json"), "utf8")) as Record<string, SchemaPreset>;
  const meanings = new Map<string, Meaning>();
  /** A cuisine as a meaning: any place serving it; found by name at any place that serves food. */
  const cuisine = (value: string): string => {
    const id = `cuisine:${value}`;
    if (!meanings.has(id)) meanings.set(id, { alternatives: withSynonyms([[tagTerm("cuisine", value)]]), hosts: FOOD_HOSTS, generic: false });
    return id;
  };
  /** Preset id → the meaning its phrases vote for (a cuisine-qualified preset votes for its cuisine). */
  const meaningOfPreset = new Map<string, string>();
  for (const [id, preset] of Object.entries(presets)) {
    const meaning = presetMeaning(preset);
    if (!meaning) continue;
    const value = cuisineOf(preset);
    if (value && !meaning.generic) meaningOfPreset.set(id, cuisine(value));
    else {
      meanings.set(id, meaning);
      meaningOfPreset.set(id, id);
    }
  }
  const votes = new Map<string, Map<string, Votes>>();
  /** Phrases that some language uses as a name (not only as a search term). */
  const namedSomewhere = new Set<string>();
  const vote = (phrase: string, meaning: string, weight: number, curated = false) => {
    let byMeaning = votes.get(phrase);
    if (!byMeaning) votes.set(phrase, (byMeaning = new Map()));
    const v = byMeaning.get(meaning) ?? { languages: 0, curated: false };
    if (curated) v.curated = true;
    v.languages += weight;
    byMeaning.set(meaning, v);
  };

  // Per language (in the order of its translation files): preset names, aliases, terms and cuisine names.
  for (const [, language] of JSON.parse(readFileSync(join(schema, "translations.json"), "utf8")) as Array<[string, TranslatedLanguage]>) {
    // What each phrase means in this language: the presets it names, else those it is a term of.
    const named = new Map<string, Set<string>>();
    const termed = new Map<string, Set<string>>();
    const note = (into: Map<string, Set<string>>, text: string | undefined, id: string) => {
      const phrase = text ? phraseKey(text) : "";
      if (!phrase) return;
      let ids = into.get(phrase);
      if (!ids) into.set(phrase, (ids = new Set()));
      ids.add(id);
    };
    for (const [presetId, translated] of Object.entries(language.presets ?? {})) {
      const id = meaningOfPreset.get(presetId);
      if (!id) continue;
      for (const name of [translated.name, ...listOf(translated.aliases)]) note(named, name, id);
      for (const term of listOf(translated.terms)) note(termed, term, id);
    }
    for (const [value, label] of Object.entries(language.cuisine)) {
      note(named, typeof label === "string" ? label : (label as { title?: string } | null)?.title, cuisine(value));
    }
    const weight = (id: string, base: number) => (meanings.get(id)?.broadened ? base / 2 : base);
    for (const [phrase, ids] of named) {
      namedSomewhere.add(phrase);
      for (const id of ids) vote(phrase, id, weight(id, NAME_VOTE));
    }
    for (const [phrase, ids] of termed) if (!named.has(phrase)) for (const id of ids) vote(phrase, id, weight(id, 1));
  }
  // Our own English labels ("gas station" is `amenity=fuel`) weigh like a name in many
  // languages: enough to decide an English word iD's English leaves loose ("pharmacy",
  // a drugstore's search term there), not enough to outvote every language ("bar", a
  // secondary label of pubs, still means `amenity=bar`).
  for (const [tag, labels] of Object.entries(OSM_LABELS)) {
    const [key, value] = tag.split("=") as [string, string];
    const id = `label:${tag}`;
    meanings.set(id, { alternatives: withSynonyms([[tagTerm(key, value)]]), hosts: [tagTerm(key, value)], generic: false });
    for (const label of labels) vote(phraseKey(label), id, CURATED_VOTE, true);
  }

  const brands = brandNames();
  const data: VocabularyData = { stamp: installedVocabularyStamp(), concepts: [], phrases: "", concept: [], strength: [], standing: [] };
  const rows: Array<[phrase: string, concept: number, strength: number, standing: 0 | 1 | 2]> = [];
  const conceptIndex = new Map<string, number>();
  for (const [phrase, byMeaning] of votes) {
    // A brand name that no language uses as a category name ("Starbucks", a search term of coffee shops) is left to name matching.
    if (STOPWORDS.has(phrase) || (brands.has(phrase) && !namedSomewhere.has(phrase) && ![...byMeaning.values()].some((v) => v.curated))) continue;
    if (!phrase.includes(" ") && phrase.length < 3) continue;
    const chosen = chooseMeanings(byMeaning, meanings);
    if (!chosen) continue;
    const key = JSON.stringify(chosen.concept);
    let index = conceptIndex.get(key);
    if (index === undefined) {
      index = data.concepts.length;
      data.concepts.push(chosen.concept);
      conceptIndex.set(key, index);
    }
    rows.push([phrase, index, chosen.strength, chosen.curated ? 2 : namedSomewhere.has(phrase) ? 1 : 0]);
  }
  rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  data.phrases = rows.map((r) => r[0]).join("\n");
  data.concept = rows.map((r) => r[1]);
  data.strength = rows.map((r) => r[2]);
  data.standing = rows.map((r) => r[3]);
  return data;
}

/**
 * The meanings a phrase keeps: every meaning with more than KEEP_SHARE of the best one's
 * votes ("kahvila" names both a café and a coffee shop in Finnish), and none when a
 * catch-all preset is among them ("shop", "store": those stay plain words). Alternatives
 * implied by a shorter one are dropped.
 */
function chooseMeanings(
  byMeaning: Map<string, Votes>,
  meanings: Map<string, Meaning>,
): { concept: [string[][], string[]]; strength: number; curated: boolean } | undefined {
  const entries = [...byMeaning].filter(([id]) => meanings.has(id)).sort((a, b) => b[1].languages - a[1].languages || (a[0] < b[0] ? -1 : 1));
  const best = entries[0]?.[1].languages ?? 0;
  const agreed = entries.filter(([, v]) => v.languages > best * KEEP_SHARE);
  if (agreed.some(([id]) => meanings.get(id)!.generic)) return undefined;
  const alternatives: string[][] = [];
  const hosts = new Set<string>();
  for (const [id] of agreed) {
    const meaning = meanings.get(id)!;
    for (const alternative of meaning.alternatives) {
      if (!alternatives.some((a) => a.join("&") === alternative.join("&"))) alternatives.push(alternative);
    }
    for (const host of meaning.hosts) hosts.add(host);
  }
  const minimal = alternatives.filter((a) => !alternatives.some((b) => b !== a && b.length < a.length && b.every((t) => a.includes(t))));
  if (minimal.length === 0) return undefined;
  return { concept: [minimal, [...hosts]], strength: best, curated: agreed.some(([, v]) => v.curated) };
}
