import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, test, type TestFunction, type TestOptions } from "vitest";
import { samplePath } from "../../src/places/import/sample.js";
import { SKIPPED_WITHOUT_SHARED_DATA } from "../reporters/skip-reasons.js";
import type { ImportItem, NamedPlace, PlaceRecord } from "../../src/places/import/place-record.js";

/**
 * The real extracts beside the project (never copied into it): ../shared/data, or the
 * folder in OUTREACH_TEST_SHARED_DATA. Only the tests that read them need them; CI always
 * has them.
 */
export const SHARED_DATA = process.env.OUTREACH_TEST_SHARED_DATA || resolve(import.meta.dirname, "../../../shared/data");

/** The real extracts the tests read (Monaco is bundled: `monacoPbf` never needs them). */
const REAL_EXTRACTS = [
  "liechtenstein-2026-03-29.osm.pbf",
  "munich-altstadt-2020-07-20.osm.pbf",
  "helsinki-centre-2019-04.osm.pbf",
  "london-city-2020-07-20.osm.pbf",
  "overture-places-us-sample-3425.parquet",
];

/** Whether the real extracts are there (a bare clone has none: the tests that read them skip). */
export const HAS_SHARED_DATA = REAL_EXTRACTS.every((name) => existsSync(resolve(SHARED_DATA, name)));

/**
 * Appended to the name of a test (or block) that skips without the extracts, so that the
 * skip says why where it is listed: `describe.skipIf(!HAS_SHARED_DATA)(`… ${SHARED_DATA_MISSING}`, …)`.
 * The summary reporter (test/reporters/plain-summary.ts) counts them under this reason.
 */
export const SHARED_DATA_MISSING = HAS_SHARED_DATA ? "" : ` [${SKIPPED_WITHOUT_SHARED_DATA}: ${SHARED_DATA} not found; see docs/data.md]`;

/** A test that reads the real extracts: skipped without them, its name saying why. */
export function dataTest(name: string, fn: TestFunction, options?: number | TestOptions): void {
  test.skipIf(!HAS_SHARED_DATA)(name + SHARED_DATA_MISSING, fn, options);
}

/** A block of tests that all read the real extracts: skipped without them, its name saying why. */
export function dataDescribe(name: string, fn: () => void, options?: number | TestOptions): void {
  describe.skipIf(!HAS_SHARED_DATA)(name + SHARED_DATA_MISSING, options ?? {}, fn);
}

/** The path of one extract, or an error that says what is missing and where it was looked for (not a bare ENOENT). */
export function sharedData(name: string): string {
  const path = resolve(SHARED_DATA, name);
  if (!existsSync(path)) {
    throw new Error(
      `needs ../shared/data/${name}: this test reads the real extracts kept beside the repository (${SHARED_DATA}), which are not here; ` +
        "put them there (docs/data.md says where they come from) or point OUTREACH_TEST_SHARED_DATA at them",
    );
  }
  return path;
}

export const liechtensteinPbf = () => sharedData("liechtenstein-2026-03-29.osm.pbf");
/** The bundled sample (src/places/import/sample), the same file as ../shared/data's Monaco extract: there in a bare clone too. */
export const monacoPbf = () => samplePath();
export const munichPbf = () => sharedData("munich-altstadt-2020-07-20.osm.pbf");
export const helsinkiPbf = () => sharedData("helsinki-centre-2019-04.osm.pbf");
export const londonPbf = () => sharedData("london-city-2020-07-20.osm.pbf");
export const overtureSample = () => sharedData("overture-places-us-sample-3425.parquet");

/** Within `tolerance` (a fraction) of `expected`. */
export function near(actual: number, expected: number, tolerance = 0.08): boolean {
  return Math.abs(actual - expected) <= expected * tolerance;
}

/** Drain an importer: the places it yields, the named places (for the geocoder), and its skips counted by reason. */
export async function collectImport(items: AsyncIterable<ImportItem>): Promise<{ places: PlaceRecord[]; localities: NamedPlace[]; skipped: Record<string, number> }> {
  const places: PlaceRecord[] = [];
  const localities: NamedPlace[] = [];
  const skipped: Record<string, number> = {};
  for await (const item of items) {
    if (item.kind === "place") places.push(item.place);
    else if (item.kind === "locality") localities.push(item.locality);
    else skipped[item.reason] = (skipped[item.reason] ?? 0) + 1;
  }
  return { places, localities, skipped };
}
