import { EARTH_RADIUS_KM, toDeg, toRad, type BoundingBox, type LatLng } from "../../core/geo.js";

/**
 * The lead search's grid: the cells its term index is clustered by (src/places/store/place-terms.ts)
 * and the geometry that finds the cells a search circle reaches. Pure arithmetic, shared by
 * the writer (a place's cell) and the reader (a circle's cells), which must agree exactly.
 */

/**
 * Grid step in degrees: 0.01° of latitude (1.1 km) by 0.015° of longitude (1.1 km at 47°N).
 * Small cells keep the rows read close to the rows inside the circle (a 5 km circle
 * touches ~85 cells, ~1.3× its area); each cell costs one B-tree seek per prefix, so a
 * 100 km circle (~25,000 cells) pays tens of milliseconds in seeks next to its rows.
 */
export const CELL_LAT_DEG = 0.01;
export const CELL_LNG_DEG = 0.015;
const ROWS = Math.round(180 / CELL_LAT_DEG);
const COLS = Math.round(360 / CELL_LNG_DEG);

function cellRow(lat: number): number {
  return Math.min(ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_LAT_DEG)));
}
function cellCol(lng: number): number {
  return Math.min(COLS - 1, Math.max(0, Math.floor((lng + 180) / CELL_LNG_DEG)));
}

/**
 * `cellOf` as an SQL expression over two columns, for the places' index by cell
 * (`places_by_cell`, migration 019) and its readers: plain SQLite arithmetic (the same
 * IEEE divisions; CAST truncates, which is floor for the non-negative values here), so a
 * bare `sqlite3` shell can write places and check the index's integrity. A test checks it
 * against `cellOf` on grid boundaries and random points.
 */
export function cellSql(lat: string, lng: string): string {
  return `max(0, min(${ROWS - 1}, CAST((${lat} + 90) / ${CELL_LAT_DEG} AS INTEGER))) * ${COLS} + max(0, min(${COLS - 1}, CAST((${lng} + 180) / ${CELL_LNG_DEG} AS INTEGER)))`;
}

/** The grid cell of a point (the same arithmetic at import and at query time). */
export function cellOf(lat: number, lng: number): number {
  return cellRow(lat) * COLS + cellCol(lng);
}

/**
 * The cells of a box as ranges of consecutive cell ids, one per grid row: what the
 * places index (`places_by_cell`) reads a box by, one index range per row.
 */
export function cellRangesOfBox(box: BoundingBox): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const first = cellCol(box.minLng);
  const last = cellCol(box.maxLng);
  for (let row = cellRow(box.minLat); row <= cellRow(box.maxLat); row++) ranges.push([row * COLS + first, row * COLS + last]);
  return ranges;
}

/** Cells as ascending, disjoint [first, last] ranges of consecutive cell ids. */
export type CellRanges = Array<[number, number]>;

/**
 * Every cell that can hold a point within `radiusKm` of the centre, as ascending ranges
 * of consecutive cells (one or two per grid row), or undefined when there are more than
 * `max` cells (circles near a pole span every longitude). Row by row of cells, the
 * circle's exact longitude half-width over the row's latitudes (spherical: widest at
 * asin(sin φ0 / cos r), clamped into the row), so no cell outside the circle's shadow is
 * listed; a hair of slack so rounding never drops a point the haversine keeps. Ranges,
 * not cells: a 100 km circle is ~25,000 cells but ~180 ranges, and the search reads and
 * checks it by range.
 */
export function circleCellRanges(center: LatLng, radiusKm: number, max: number): CellRanges | undefined {
  const r = (radiusKm / EARTH_RADIUS_KM) * 1.0001;
  const phi0 = toRad(center.lat);
  const latMin = Math.max(-90, center.lat - toDeg(r));
  const latMax = Math.min(90, center.lat + toDeg(r));
  const widest = Math.asin(Math.max(-1, Math.min(1, Math.sin(phi0) / Math.cos(r))));
  const ranges: CellRanges = [];
  let count = 0;
  for (let row = cellRow(latMin); row <= cellRow(latMax); row++) {
    const a = Math.max(latMin, row * CELL_LAT_DEG - 90);
    const b = Math.min(latMax, (row + 1) * CELL_LAT_DEG - 90);
    const phi = Math.max(toRad(a), Math.min(toRad(b), widest));
    const denominator = Math.cos(phi0) * Math.cos(phi);
    const x = denominator <= 1e-12 ? -1 : (Math.cos(r) - Math.sin(phi0) * Math.sin(phi)) / denominator;
    const half = x <= -1 ? 180 : toDeg(Math.acos(Math.min(1, x))) * 1.0001 + 1e-9;
    const cols: Array<[number, number]> = [];
    if (half >= 180) cols.push([0, COLS - 1]);
    else {
      const lo = center.lng - half;
      const hi = center.lng + half;
      if (hi > 180) cols.push([0, cellCol(hi - 360)]);
      cols.push([cellCol(Math.max(-180, lo)), cellCol(Math.min(180, hi))]);
      if (lo < -180) cols.push([cellCol(lo + 360), COLS - 1]);
    }
    for (const [c0, c1] of cols) {
      count += c1 - c0 + 1;
      if (count > max) return undefined;
      const last = ranges[ranges.length - 1];
      if (last && row * COLS + c0 <= last[1] + 1) last[1] = Math.max(last[1], row * COLS + c1);
      else ranges.push([row * COLS + c0, row * COLS + c1]);
    }
  }
  return ranges;
}

/** Every cell of `circleCellRanges`, one by one (ascending). */
export function cellsOfCircle(center: LatLng, radiusKm: number, max: number): number[] | undefined {
  const ranges = circleCellRanges(center, radiusKm, max);
  return ranges && cellsOf(ranges);
}

/** The cells of some ranges, one by one. */
export function cellsOf(ranges: CellRanges): number[] {
  const cells: number[] = [];
  for (const [first, last] of ranges) for (let c = first; c <= last; c++) cells.push(c);
  return cells;
}

/** How many cells some ranges hold. */
export function cellCount(ranges: CellRanges): number {
  let n = 0;
  for (const [first, last] of ranges) n += last - first + 1;
  return n;
}

/** Ascending ranges without some of their cells (a range with a cell removed splits in two). */
export function rangesWithout(ranges: CellRanges, removed: ReadonlySet<number>): CellRanges {
  if (removed.size === 0) return ranges;
  const out: CellRanges = [];
  for (const [first, last] of ranges) {
    let start = first;
    for (const cell of [...removed].filter((c) => c >= first && c <= last).sort((a, b) => a - b)) {
      if (cell > start) out.push([start, cell - 1]);
      start = cell + 1;
    }
    if (start <= last) out.push([start, last]);
  }
  return out;
}

/**
 * Parameters of a prefilter that never drops a point of the circle (the term index's scan
 * runs it in SQL on each row's lat/lng before the row costs a conversion). With a = Δφ/2 and b = Δλ/2
 * (radians), the haversine is h = sin²a + cos φ0 cos φ sin²b, inside iff h ≤ sin²(r/2).
 * Since |sin x| ≥ |x − x³/6| for |x| ≤ √6 and cos φ ≥ its least value over the circle's
 * latitudes, (a − a³/6)² + cos φ0 · cos φ_far · (b − b³/6)² ≤ h: a row is dropped only
 * when even this lower bound exceeds sin²(r/2) (times a hair for rounding). Off (h = ∞)
 * when the circle crosses ±180° (Δλ wraps) or reaches a pole.
 */
export function outsideBound(center: LatLng, radiusKm: number): { lat: number; lng: number; k: number; cc: number; h: number } {
  const r = radiusKm / EARTH_RADIUS_KM;
  const dLat = toDeg(r) * 1.0001;
  const farLat = Math.abs(center.lat) + dLat;
  const dLng = farLat >= 90 ? 360 : (dLat / Math.cos(toRad(farLat))) * 1.0001;
  const off = farLat >= 89 || center.lng - dLng < -180 || center.lng + dLng > 180;
  return {
    lat: center.lat,
    lng: center.lng,
    k: Math.PI / 360,
    cc: Math.cos(toRad(center.lat)) * Math.cos(toRad(Math.min(90, farLat))),
    h: off ? Number.MAX_VALUE : Math.sin(r / 2) ** 2 * (1 + 1e-6),
  };
}
/** The cells in both of two sets of ascending ranges (one pass over both). */
export function rangesIntersection(a: CellRanges, b: CellRanges): CellRanges {
  const out: CellRanges = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const first = Math.max(a[i]![0], b[j]![0]);
    const last = Math.min(a[i]![1], b[j]![1]);
    if (first <= last) out.push([first, last]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/** The cells of `a` that are not in `b`, both ascending ranges (one pass over both). */
export function rangesMinus(a: CellRanges, b: CellRanges): CellRanges {
  const out: CellRanges = [];
  let j = 0;
  for (const [first, last] of a) {
    let start = first;
    while (j < b.length && b[j]![1] < start) j++;
    for (let k = j; k < b.length && b[k]![0] <= last; k++) {
      if (b[k]![0] > start) out.push([start, b[k]![0] - 1]);
      start = Math.max(start, b[k]![1] + 1);
    }
    if (start <= last) out.push([start, last]);
  }
  return out;
}
