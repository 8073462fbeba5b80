import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { tempDir } from "../../helpers/data-dir.js";

/**
 * How the category vocabulary is loaded (issue 27, items 4 and 5): from the copy the build
 * ships in dist/ when its stamp is the installed packages' (a fresh machine builds nothing),
 * built and cached otherwise, and once loaded without touching a file again (an import
 * asks for it once per place). `node:fs` is observed, not replaced: every read is real.
 */
const observed = vi.hoisted(() => ({ reads: [] as string[], builds: 0, builtStamp: undefined as string | undefined }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const readFileSync = ((path: Parameters<typeof fs.readFileSync>[0], ...rest: unknown[]) => {
    observed.reads.push(String(path));
    const text = (fs.readFileSync as (...args: unknown[]) => string | Buffer)(path, ...rest);
    // A build from other package versions: the shipped file as it would be, with another stamp.
    if (observed.builtStamp !== undefined && String(path).endsWith(join("dist", "category-vocabulary.json"))) {
      return JSON.stringify({ ...JSON.parse(String(text)), stamp: observed.builtStamp });
    }
    return text;
  }) as typeof fs.readFileSync;
  const existsSync = ((path: Parameters<typeof fs.existsSync>[0]) => {
    observed.reads.push(String(path));
    return fs.existsSync(path);
  }) as typeof fs.existsSync;
  return { ...fs, default: { ...fs, readFileSync, existsSync }, readFileSync, existsSync };
});

vi.mock("../../../src/places/vocabulary/vocabulary-build.js", async (importOriginal) => {
  const build = await importOriginal<typeof import("../../../src/places/vocabulary/vocabulary-build.js")>();
  return {
    ...build,
    buildVocabulary: () => {
      observed.builds++;
      return build.buildVocabulary();
    },
  };
});

/** The loader as a new process has it (no vocabulary loaded yet). */
async function freshLoader() {
  vi.resetModules();
  return (await import("../../../src/places/vocabulary/category-vocabulary.js")).loadCategoryVocabulary;
}

beforeEach(() => {
  observed.reads = [];
  observed.builds = 0;
  observed.builtStamp = undefined;
});

describe("loading the category vocabulary", () => {
  it("on a fresh machine (empty cache directory) reads the vocabulary the build shipped: nothing is built or cached", async () => {
    const cacheDir = join(tempDir(), "cache");
    const load = await freshLoader();
    const vocabulary = load(cacheDir);
    expect(observed.builds).toBe(0);
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toEqual([]);
    expect(observed.reads.some((file) => file.endsWith(join("dist", "category-vocabulary.json")))).toBe(true);
    // The real vocabulary: a German word means the dentist's tags.
    expect(vocabulary.tagsOfLabels(["Zahnarzt"])).toContain("amenity=dentist");
  });

  it("a shipped vocabulary with another stamp (packages upgraded since the build) is not used: it is built and cached", async () => {
    observed.builtStamp = "6|id-tagging-schema 7.1.0|nsi 8.0.0";
    const cacheDir = join(tempDir(), "cache");
    const load = await freshLoader();
    const vocabulary = load(cacheDir);
    expect(observed.builds).toBe(1);
    expect(readdirSync(cacheDir)).toEqual(["category-vocabulary.json"]);
    expect(vocabulary.data.stamp).not.toBe(observed.builtStamp);
    expect(vocabulary.tagsOfLabels(["dentist"])).toContain("amenity=dentist");
  }, 60_000);

  it("once loaded, asking again touches no file (an import asks once per place)", async () => {
    const cacheDir = join(tempDir(), "cache");
    const load = await freshLoader();
    const first = load(cacheDir);
    observed.reads = [];
    for (let i = 0; i < 1000; i++) expect(load(cacheDir)).toBe(first);
    expect(observed.reads).toEqual([]);
  });
});
