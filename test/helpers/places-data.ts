import { resolve } from "node:path";
import type { ImportItem, NamedPlace, PlaceRecord } from "../../src/providers/places/place-record.js";

/** The real extracts beside the project (never copied into it): ../shared/data. */
export const SHARED_DATA = resolve(import.meta.dirname, "../../../shared/data");
export const dataFile = (name: string) => resolve(SHARED_DATA, name);

export const LIECHTENSTEIN = dataFile("liechtenstein-2026-03-29.osm.pbf");
export const MONACO = dataFile("monaco-2026-07-10.osm.pbf");
export const MUNICH = dataFile("munich-altstadt-2020-07-20.osm.pbf");
export const OVERTURE_SAMPLE = dataFile("overture-places-us-sample-3425.parquet");

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
