import { resolve } from "node:path";

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
