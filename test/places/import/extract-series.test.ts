import { describe, expect, test } from "vitest";
import { extractSeries } from "../../../src/places/import/extract-series.js";

describe("which extracts are revisions of one region", () => {
  test("Geofabrik's latest and dated names, and ISO dates, name one series", () => {
    for (const name of ["germany-latest.osm.pbf", "germany-251120.osm.pbf", "germany-2025-11-20.osm.pbf", "Germany-20251120.osm.pbf", "germany_2025-11-20.osm.pbf"]) {
      expect(extractSeries(name), name).toBe("germany.osm.pbf");
    }
    expect(extractSeries("baden-wuerttemberg-latest.osm.pbf")).toBe("baden-wuerttemberg.osm.pbf");
    expect(extractSeries("overture-places-2026-03-18.parquet")).toBe("overture-places.parquet");
    expect(extractSeries("village-2026-01-01.osm")).toBe("village.osm");
  });

  test("names without a date or 'latest', other formats and impossible dates belong to no series", () => {
    for (const name of ["germany.osm.pbf", "my-dentists-2026-01-01.csv", "germany-251340.osm.pbf", "germany-2025-13-01.osm.pbf", "latest.osm.pbf", "notes.txt"]) {
      expect(extractSeries(name), name).toBeNull();
    }
    // A different region is a different series, though both are dated.
    expect(extractSeries("austria-251120.osm.pbf")).not.toBe(extractSeries("germany-251120.osm.pbf"));
  });
});
