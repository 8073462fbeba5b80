#!/usr/bin/env node
// Extracts what the lead search's category vocabulary reads from the iD editor's tagging
// schema (npm @openstreetmap/id-tagging-schema, ISC) into dist/tagging-schema/, at build
// time (`npm run build`, `prepare`; the tests' global setup when it is missing), and,
// once the sources are compiled, writes the vocabulary built from it to
// dist/category-vocabulary.json (so the build runs it after tsc).
//
// Why not a dependency: the package is JSON data that any Node reads, but its package.json
// asks for node >= 22 (for its own build tools), so `npm ci` on Node 20 warned EBADENGINE
// for a requirement outreach does not have. `npm pack` fetches the exact version (through
// npm's cache and registry, checked against the registry's integrity) without installing
// it, so no engines check applies; the extract records the version and integrity it came
// from, and the vocabulary's stamp names that version (src/places/vocabulary/vocabulary-build.ts).
//
// Output (a few MB instead of the package's 60): presets.json (each preset's tags and
// addTags), translations.json ([language, {presets: {id: {name, aliases, terms}}, cuisine:
// options}] per language, sorted by file name as before), source.json ({name, version, integrity}).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const TAGGING_SCHEMA = { name: "@openstreetmap/id-tagging-schema", version: "7.2.0" };

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const OUT = join(ROOT, "dist", "tagging-schema");

/** Whether dist/ already holds the extract of this version. */
function current() {
  try {
    const source = JSON.parse(readFileSync(join(OUT, "source.json"), "utf8"));
    return source.name === TAGGING_SCHEMA.name && source.version === TAGGING_SCHEMA.version && existsSync(join(OUT, "translations.json"));
  } catch {
    return false;
  }
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

export function extractTaggingSchema() {
  if (current()) return false;
  const work = mkdtempSync(join(tmpdir(), "tagging-schema-"));
  try {
    const spec = `${TAGGING_SCHEMA.name}@${TAGGING_SCHEMA.version}`;
    const [packed] = JSON.parse(
      execFileSync(npm, ["pack", spec, "--json", "--prefer-offline", "--pack-destination", work], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], shell: process.platform === "win32" }),
    );
    execFileSync("tar", ["-xzf", join(work, packed.filename), "-C", work, "package/dist/presets.min.json", "package/dist/translations"], { stdio: "inherit" });
    const dist = join(work, "package", "dist");
    const presets = {};
    for (const [id, preset] of Object.entries(JSON.parse(readFileSync(join(dist, "presets.min.json"), "utf8")))) {
      presets[id] = { ...(preset.tags && { tags: preset.tags }), ...(preset.addTags && { addTags: preset.addTags }) };
    }
    const translations = [];
    for (const file of readdirSync(join(dist, "translations")).filter((f) => f.endsWith(".min.json")).sort()) {
      const [language, content] = Object.entries(JSON.parse(readFileSync(join(dist, "translations", file), "utf8")))[0] ?? [];
      const given = content?.presets;
      if (!given) continue;
      const names = {};
      for (const [id, t] of Object.entries(given.presets ?? {})) {
        if (t.name === undefined && t.aliases === undefined && t.terms === undefined) continue;
        names[id] = { ...(t.name !== undefined && { name: t.name }), ...(t.aliases !== undefined && { aliases: t.aliases }), ...(t.terms !== undefined && { terms: t.terms }) };
      }
      translations.push([language, { presets: names, cuisine: given.fields?.cuisine?.options ?? {} }]);
    }
    // Written beside, then moved in: a killed build never leaves a half-written extract that looks current.
    const next = `${OUT}.next`;
    rmSync(next, { recursive: true, force: true });
    mkdirSync(next, { recursive: true });
    writeFileSync(join(next, "presets.json"), JSON.stringify(presets));
    writeFileSync(join(next, "translations.json"), JSON.stringify(translations));
    writeFileSync(join(next, "source.json"), JSON.stringify({ ...TAGGING_SCHEMA, integrity: packed.integrity, licence: "ISC" }, null, 2) + "\n");
    rmSync(OUT, { recursive: true, force: true });
    renameSync(next, OUT);
    return true;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The category vocabulary built from the extract by the compiled build
 * (dist/places/vocabulary/vocabulary-build.js), written to dist/category-vocabulary.json
 * with the stamp it was built under (format, tagging schema and name-suggestion-index
 * versions; the program uses it only when that stamp is the installed packages'): a fresh
 * machine's first search reads it instead of building it for seconds. `force` rebuilds it
 * (the build: the code that makes it may have changed); otherwise (the tests' global setup)
 * a copy whose stamp is current stays. Returns whether it was written; false before a compile.
 */
export async function writeBuiltVocabulary({ force = false } = {}) {
  const module = join(ROOT, "dist", "places", "vocabulary", "vocabulary-build.js");
  if (!existsSync(module)) return false;
  const { buildVocabulary, readBuiltVocabulary, BUILT_VOCABULARY_FILE } = await import(pathToFileURL(module).href);
  if (!force && readBuiltVocabulary()) return false;
  const file = join(ROOT, "dist", BUILT_VOCABULARY_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(buildVocabulary()));
  // Moved in whole: a killed build never leaves half a file with a current stamp.
  renameSync(temporary, file);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (extractTaggingSchema()) process.stdout.write(`dist/tagging-schema: ${TAGGING_SCHEMA.name} ${TAGGING_SCHEMA.version} extracted\n`);
  if (await writeBuiltVocabulary({ force: true })) process.stdout.write("dist/category-vocabulary.json: built\n");
}
