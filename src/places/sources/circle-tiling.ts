import { circleBoxes, distanceKm, type BoundingBox, type LatLng } from "../../core/geo.js";

/** What one rectangle's query gave: its results, and whether it stopped at the source's cap (more may be there). */
export interface TileAnswer<T> {
  results: T[];
  capped: boolean;
}

export interface TilingOptions<T> {
  center: LatLng;
  radiusKm: number;
  /** Query one rectangle, all its pages. Counts its own requests. */
  query: (box: BoundingBox) => Promise<TileAnswer<T>>;
  /** Whether the search may still spend a tile's requests (the request budget). */
  mayQuery: () => boolean;
  /** Splits of a capped tile: 4 quarters each level. */
  maxDepth: number;
}

export interface TilingOutcome<T> {
  results: T[];
  /** Tiles still capped at `maxDepth`, or skipped because the budget ran out: results may be missing. */
  incomplete: boolean;
  tiles: number;
}

/** The point of the box nearest the centre. */
function nearestPoint(box: BoundingBox, center: LatLng): LatLng {
  return { lat: Math.min(box.maxLat, Math.max(box.minLat, center.lat)), lng: Math.min(box.maxLng, Math.max(box.minLng, center.lng)) };
}

function quarters(box: BoundingBox): BoundingBox[] {
  const midLat = (box.minLat + box.maxLat) / 2;
  const midLng = (box.minLng + box.maxLng) / 2;
  return [
    { minLat: box.minLat, maxLat: midLat, minLng: box.minLng, maxLng: midLng },
    { minLat: box.minLat, maxLat: midLat, minLng: midLng, maxLng: box.maxLng },
    { minLat: midLat, maxLat: box.maxLat, minLng: box.minLng, maxLng: midLng },
    { minLat: midLat, maxLat: box.maxLat, minLng: midLng, maxLng: box.maxLng },
  ];
}

/** Whether the box reaches into the circle (its point nearest the centre lies inside). */
export function boxReaches(box: BoundingBox, center: LatLng, radiusKm: number): boolean {
  return distanceKm(center, nearestPoint(box, center)) <= radiusKm;
}

/**
 * A strict circle from a source that only restricts to rectangles and caps each query
 * (Google Text Search: 60 results): start with the circle's bounding box; a tile whose
 * query hit the cap is split into quarters, each queried again (those that reach the
 * circle), down to `maxDepth`, breadth first so a request budget spends itself on the
 * coarse levels first. Results of every tile are returned, the caller drops what lies
 * outside the circle and deduplicates (a capped tile's results are real, and its
 * quarters find most of them again).
 */
export async function tileCircle<T>(options: TilingOptions<T>): Promise<TilingOutcome<T>> {
  const { center, radiusKm } = options;
  const results: T[] = [];
  let incomplete = false;
  let tiles = 0;
  let level: BoundingBox[] = circleBoxes(center, radiusKm);
  for (let depth = 0; level.length > 0; depth++) {
    const next: BoundingBox[] = [];
    for (const box of level) {
      if (!options.mayQuery()) {
        incomplete = true;
        continue;
      }
      tiles++;
      const answer = await options.query(box);
      results.push(...answer.results);
      if (!answer.capped) continue;
      if (depth >= options.maxDepth) incomplete = true;
      else next.push(...quarters(box).filter((q) => boxReaches(q, center, radiusKm)));
    }
    level = next;
  }
  return { results, incomplete, tiles };
}
