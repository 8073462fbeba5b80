import { describe, expect, test } from "vitest";
import { extractSeries } from "../../../src/places/import/extract-series.js";
import { dateFromFileName } from "../../../src/places/import/importers/data-date.js";

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

  test("a file's data date is read by the same grammar that makes it a revision (issue 28: one rule)", () => {
    expect(dateFromFileName("germany-251120.osm.pbf")).toBe("2025-11-20");
    expect(dateFromFileName("germany-2025-11-20.osm.pbf")).toBe("2025-11-20");
    expect(dateFromFileName("Germany-20251120.osm.pbf")).toBe("2025-11-20");
    expect(dateFromFileName("liechtenstein-2026-03-29.osm.pbf")).toBe("2026-03-29");
    expect(dateFromFileName("helsinki-2019-04.csv")).toBe("2019-04");
    // Six digits are a date only where Geofabrik puts one, at the end of the stem.
    expect(dateFromFileName("shop-251120-list.csv")).toBeNull();
    expect(dateFromFileName("germany-latest.osm.pbf")).toBeNull();
    for (const name of ["germany-251120.osm.pbf", "germany-2025-11-20.osm.pbf", "germany_20251120.osm.pbf"]) {
      expect(extractSeries(name), name).not.toBeNull();
      expect(dateFromFileName(name), name).toBe("2025-11-20");
    }
  });
});
