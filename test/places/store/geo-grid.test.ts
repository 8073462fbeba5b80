import { describe, expect, test } from "vitest";
import { distanceKm, insideBox } from "../../../src/core/geo.js";
import { cellCount, cellOf, cellsOf, cellsOfCircle, circleCellRanges, rangesIntersection, rangesMinus, rangesWithout } from "../../../src/places/store/geo-grid.js";

describe("the search grid", () => {
  test("a circle's cells hold every point within its radius, across ±180° too, and not far beyond", () => {
    for (const [center, radiusKm] of [[{ lat: 47.14, lng: 9.52 }, 5], [{ lat: -17, lng: 179.99 }, 20], [{ lat: 64.1, lng: -21.9 }, 100], [{ lat: 0, lng: 0 }, 1]] as const) {
      const cells = new Set(cellsOfCircle(center, radiusKm, 1e6));
      let seed = 1;
      const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
      let inside = 0;
      for (let i = 0; i < 5000; i++) {
        // Points up to 1.2 radii away, many of them right at the edge.
        const d = radiusKm * (i % 2 ? 1 - random() * 1e-6 : random() * 1.2);
        const bearing = random() * 2 * Math.PI;
        const dLat = (d / 111.195) * Math.cos(bearing);
        const lat = center.lat + dLat;
        let lng = center.lng + ((d / 111.195) * Math.sin(bearing)) / Math.cos(((center.lat + dLat / 2) * Math.PI) / 180);
        if (lng > 180) lng -= 360;
        if (lng < -180) lng += 360;
        if (distanceKm(center, { lat, lng }) > radiusKm) continue;
        inside++;
        expect(cells.has(cellOf(lat, lng))).toBe(true);
      }
      expect(inside).toBeGreaterThan(2000);
    }
    // About the circle's area, not its bounding box's square.
    const small = cellsOfCircle({ lat: 47.14, lng: 9.52 }, 5, 1e6)!;
    expect(small.length).toBeLessThan(((Math.PI * 25) / (1.112 * 1.135)) * 1.5);
    expect(cellsOfCircle({ lat: 89.9, lng: 0 }, 50, 60_000)).toBeUndefined();
  });

  test("a circle's cells come as ascending, disjoint ranges of consecutive cells, across ±180° too", () => {
    for (const [center, radiusKm] of [[{ lat: 47.14, lng: 9.52 }, 5], [{ lat: -17, lng: 179.99 }, 20], [{ lat: 10, lng: -179.995 }, 30], [{ lat: 64.1, lng: -21.9 }, 100]] as const) {
      const ranges = circleCellRanges(center, radiusKm, 1e6)!;
      for (let i = 0; i < ranges.length; i++) {
        expect(ranges[i]![0]).toBeLessThanOrEqual(ranges[i]![1]);
        // Not even adjacent: adjacent ranges would have been one.
        if (i > 0) expect(ranges[i]![0]).toBeGreaterThan(ranges[i - 1]![1] + 1);
      }
      const cells = cellsOf(ranges);
      expect(cells).toEqual(cellsOfCircle(center, radiusKm, 1e6));
      expect(cellCount(ranges)).toBe(cells.length);
      expect(new Set(cells).size).toBe(cells.length);
    }
    // A 100 km circle: thousands of cells, a couple of hundred ranges.
    const large = circleCellRanges({ lat: 47.14, lng: 9.52 }, 100, 1e6)!;
    expect(cellCount(large)).toBeGreaterThan(20_000);
    expect(large.length).toBeLessThan(200);
    expect(circleCellRanges({ lat: 89.9, lng: 0 }, 50, 60_000)).toBeUndefined();
  });

  test("cells taken out of ranges split them; cells outside them change nothing", () => {
    const ranges: Array<[number, number]> = [[3, 8], [20, 20], [30, 31]];
    expect(rangesWithout(ranges, new Set([3, 5, 20, 31, 100]))).toEqual([[4, 4], [6, 8], [30, 30]]);
    expect(rangesWithout(ranges, new Set())).toEqual(ranges);
    expect(rangesWithout(ranges, new Set([8, 7, 6, 5, 4, 3]))).toEqual([[20, 20], [30, 31]]);
  });
});

describe("boxes", () => {
  test("a point is inside a box when within its bounds (edges included), and inside no box at all", () => {
    const box = { minLat: 47, maxLat: 48, minLng: 9, maxLng: 10 };
    expect(insideBox(box, 47.5, 9.5)).toBe(true);
    expect(insideBox(box, 48, 10)).toBe(true);
    expect(insideBox(box, 48.01, 9.5)).toBe(false);
    expect(insideBox(undefined, 0, 0)).toBe(true);
  });

  test("ranges intersected and subtracted agree with the sets of their cells", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const someRanges = () => {
      const out: Array<[number, number]> = [];
      for (let at = Math.floor(random() * 5); at < 200; at += 2 + Math.floor(random() * 12)) {
        const last = at + Math.floor(random() * 8);
        out.push([at, last]);
        at = last;
      }
      return out;
    };
    for (let i = 0; i < 200; i++) {
      const a = someRanges();
      const b = someRanges();
      const inB = new Set(cellsOf(b));
      expect(cellsOf(rangesIntersection(a, b))).toEqual(cellsOf(a).filter((c) => inB.has(c)));
      expect(cellsOf(rangesMinus(a, b))).toEqual(cellsOf(a).filter((c) => !inB.has(c)));
    }
    // A circle is its inner circle's cells and the ring around them.
    const outer = circleCellRanges({ lat: 47.14, lng: 9.52 }, 30, 1e6)!;
    const inner = rangesIntersection(outer, circleCellRanges({ lat: 47.14, lng: 9.52 }, 10, 1e6)!);
    expect(cellCount(inner) + cellCount(rangesMinus(outer, inner))).toBe(cellCount(outer));
    expect(cellsOf(inner)).toEqual(cellsOfCircle({ lat: 47.14, lng: 9.52 }, 10, 1e6));
  });
});
