import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { foldForSearch } from "../../core/text.js";
import { OSM_LABELS } from "./category-labels.js";
import { FOOD_HOSTS, isBusinessKey, isInfrastructure, isQualifierKey, tagTerm } from "./place-tags.js";

/**
 * Builds the lead search's category vocabulary (see `category-vocabulary.ts`) from the
 * installed packages: every name, alias and search term of every business preset of the
 * OpenStreetMap iD editor's tagging schema (`@openstreetmap/id-tagging-schema`, ≈ 130
 * languages), the translated names of its cuisine values, and our own English labels
 * (`category-labels.ts`). Brand names of the name-suggestion-index are left out: a word
 * such as "Starbucks" (a search term of iD's coffee shop preset) means that brand, which
 * the search finds by name, not every coffee shop.
 *
 * A few seconds of work (≈ 15 MB of translations): the result is cached (see
 * `loadCategoryVocabulary`).
 */

/** Bump when the build changes what it produces: cached vocabularies of an older format are rebuilt. */
export const VOCABULARY_FORMAT = 2;

/** The vocabulary in its serialised form: concepts once, phrases pointing at them. */
export interface VocabularyData {
  /** Packages and format it was built from; a cache with another stamp is stale. */
  stamp: string;
  /** [alternatives (each a conjunction of tag terms), hosts (business terms that may also match by name)]. */
  concepts: Array<[alternatives: string[][], hosts: string[]]>;
  /**
   * [phrase (folded words, one space), concept index, strength (languages agreeing on
   * its best meaning), standing (2: one of our curated English labels, 1: some
   * language's name for it, 0: only a search term)].
   */
  phrases: Array<[phrase: string, concept: number, strength: number, standing: 0 | 1 | 2]>;
}

interface TranslatedPreset {
  name?: string;
  aliases?: string[] | string;
  terms?: string[] | string;
}
interface TranslationFile {
  presets?: { presets?: Record<string, TranslatedPreset>; fields?: Record<string, { options?: Record<string, unknown> }> };
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
}

/**
 * Votes for the meanings of one phrase, one per language: in each language a phrase
 * means the presets it names there (name or alias) or, if it names none, those it is a
 * search term of. A phrase such as "bar" names `amenity=bar` in dozens of languages and
 * `amenity=cafe` in one (Italian); search terms are loose (Swedish lists "pizzeria" under
 * every kind of restaurant), so they only speak where no name does.
 */
interface Votes {
  languages: number;
  curated: boolean;
}
/** A meaning is kept when at least this share of the best meaning's languages agree on it. */
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
 * Where an installed package is, found through what it lets us resolve: the schema its
 * `package.json`, the name-suggestion-index its CommonJS entry (`dist/js/nsi.cjs`; its
 * `exports` map names no data file).
 */
const PACKAGE_ENTRIES = {
  "@openstreetmap/id-tagging-schema": "@openstreetmap/id-tagging-schema/package.json",
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

/** The stamp of the installed packages: what a cached vocabulary must carry to be used. */
export function installedVocabularyStamp(): string {
  return `${VOCABULARY_FORMAT}|id-tagging-schema ${packageVersion(packageDir("@openstreetmap/id-tagging-schema"))}|nsi ${packageVersion(packageDir("name-suggestion-index"))}`;
}

/** What a preset means: each business tag (its own and those iD adds) with its qualifiers; undefined for non-businesses and infrastructure. */
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
  return { alternatives: [...business].map((b) => [b, ...qualifiers]), hosts: [...business], generic: false };
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
  const schema = join(packageDir("@openstreetmap/id-tagging-schema"), "dist");
  const presets = JSON.parse(readFileSync(join(schema, "presets.min.json"), "utf8")) as Record<string, SchemaPreset>;
  const meanings = new Map<string, Meaning>();
  for (const [id, preset] of Object.entries(presets)) {
    const meaning = presetMeaning(preset);
    if (meaning) meanings.set(id, meaning);
  }
  const cuisine = (value: string): string => {
    const id = `cuisine:${value}`;
    if (!meanings.has(id)) meanings.set(id, { alternatives: [[tagTerm("cuisine", value)]], hosts: FOOD_HOSTS, generic: false });
    return id;
  };
  const votes = new Map<string, Map<string, Votes>>();
  /** Phrases that some language uses as a name (not only as a search term). */
  const namedSomewhere = new Set<string>();
  const vote = (phrase: string, meaning: string, curated = false) => {
    let byMeaning = votes.get(phrase);
    if (!byMeaning) votes.set(phrase, (byMeaning = new Map()));
    const v = byMeaning.get(meaning) ?? { languages: 0, curated: false };
    if (curated) v.curated = true;
    else v.languages++;
    byMeaning.set(meaning, v);
  };

  const translations = join(schema, "translations");
  for (const file of readdirSync(translations).filter((f) => f.endsWith(".min.json")).sort()) {
    const language = Object.values(JSON.parse(readFileSync(join(translations, file), "utf8")) as Record<string, TranslationFile>)[0]?.presets;
    if (!language) continue;
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
    for (const [id, translated] of Object.entries(language.presets ?? {})) {
      if (!meanings.has(id)) continue;
      for (const name of [translated.name, ...listOf(translated.aliases)]) note(named, name, id);
      for (const term of listOf(translated.terms)) note(termed, term, id);
    }
    for (const [value, label] of Object.entries(language.fields?.cuisine?.options ?? {})) {
      note(named, typeof label === "string" ? label : (label as { title?: string } | null)?.title, cuisine(value));
    }
    for (const [phrase, ids] of named) {
      namedSomewhere.add(phrase);
      for (const id of ids) vote(phrase, id);
    }
    for (const [phrase, ids] of termed) if (!named.has(phrase)) for (const id of ids) vote(phrase, id);
  }
  // Our own English labels ("gas station", "vet"; a pub is a bar too) are always kept.
  for (const [tag, labels] of Object.entries(OSM_LABELS)) {
    const [key, value] = tag.split("=") as [string, string];
    const id = `label:${tag}`;
    meanings.set(id, { alternatives: [[tagTerm(key, value)]], hosts: [tagTerm(key, value)], generic: false });
    for (const label of labels) vote(phraseKey(label), id, true);
  }

  const brands = brandNames();
  const data: VocabularyData = { stamp: installedVocabularyStamp(), concepts: [], phrases: [] };
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
    data.phrases.push([phrase, index, chosen.strength, chosen.curated ? 2 : namedSomewhere.has(phrase) ? 1 : 0]);
  }
  return data;
}

/**
 * The meanings a phrase keeps: our curated English labels when it is one (they decide
 * what "pharmacy" or "bar" means: iD's English calls a drugstore "pharmacy" too); else
 * every meaning at least KEEP_SHARE of the best one's languages agree on, and none when
 * a catch-all preset is among them ("shop", "store": those stay plain words).
 * Alternatives implied by a shorter one (cuisine-qualified restaurants when all
 * restaurants are in) are dropped.
 */
function chooseMeanings(
  byMeaning: Map<string, Votes>,
  meanings: Map<string, Meaning>,
): { concept: [string[][], string[]]; strength: number; curated: boolean } | undefined {
  const entries = [...byMeaning].filter(([id]) => meanings.has(id)).sort((a, b) => b[1].languages - a[1].languages || (a[0] < b[0] ? -1 : 1));
  const best = entries[0]?.[1].languages ?? 0;
  const agreed = (v: Votes) => v.languages > 0 && v.languages >= best * KEEP_SHARE;
  const curated = entries.filter(([, v]) => v.curated);
  if (curated.length === 0 && entries.some(([id, v]) => meanings.get(id)!.generic && agreed(v))) return undefined;
  const kept = curated.length > 0 ? curated : entries.filter(([id, v]) => !meanings.get(id)!.generic && agreed(v));
  const alternatives: string[][] = [];
  const hosts = new Set<string>();
  for (const [id] of kept) {
    const meaning = meanings.get(id)!;
    for (const alternative of meaning.alternatives) {
      if (!alternatives.some((a) => a.join("&") === alternative.join("&"))) alternatives.push(alternative);
    }
    for (const host of meaning.hosts) hosts.add(host);
  }
  const minimal = alternatives.filter((a) => !alternatives.some((b) => b !== a && b.length < a.length && b.every((t) => a.includes(t))));
  if (minimal.length === 0) return undefined;
  return { concept: [minimal, [...hosts]], strength: Math.max(best, curated.length > 0 ? 1 : 0), curated: curated.length > 0 };
}
