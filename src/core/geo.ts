/** Great-circle geometry for the strict search circle. */

export interface LatLng {
  lat: number;
  lng: number;
}

export const EARTH_RADIUS_KM = 6371.0088;
export const toRad = (deg: number) => (deg * Math.PI) / 180;
export const toDeg = (rad: number) => (rad * 180) / Math.PI;

/** Haversine distance in km. */
export function distanceKm(a: LatLng, b: LatLng): number {
  const dLat = toRad(b.lat - a.lat);
  const dLng = toRad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A rectangle in degrees (`--bbox`, a circle's cover, a Parquet row group's extent). */
export interface BoundingBox {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/** Whether a point lies in the box; every point does when there is no box. */
export function insideBox(box: BoundingBox | undefined, lat: number, lng: number): boolean {
  if (!box) return true;
  return lat >= box.minLat && lat <= box.maxLat && lng >= box.minLng && lng <= box.maxLng;
}

/**
 * The boxes that cover a circle: one normally, two when it crosses the antimeridian,
 * a full band of longitudes when it reaches a pole. Slightly generous (a hair of slack)
 * so rounding never drops a point the haversine test would keep.
 */
export function circleBoxes(center: LatLng, radiusKm: number): BoundingBox[] {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI) * 1.0001;
  const minLat = Math.max(-90, center.lat - dLat);
  const maxLat = Math.min(90, center.lat + dLat);
  if (minLat <= -90 || maxLat >= 90) return [{ minLat, maxLat, minLng: -180, maxLng: 180 }];
  // Widest at the latitude farthest from the equator inside the box.
  const widestLat = Math.max(Math.abs(minLat), Math.abs(maxLat));
  const dLng = Math.min(180, dLat / Math.cos(toRad(widestLat)));
  const minLng = center.lng - dLng;
  const maxLng = center.lng + dLng;
  if (dLng >= 180) return [{ minLat, maxLat, minLng: -180, maxLng: 180 }];
  if (minLng < -180) return [{ minLat, maxLat, minLng: minLng + 360, maxLng: 180 }, { minLat, maxLat, minLng: -180, maxLng }];
  if (maxLng > 180) return [{ minLat, maxLat, minLng, maxLng: 180 }, { minLat, maxLat, minLng: -180, maxLng: maxLng - 360 }];
  return [{ minLat, maxLat, minLng, maxLng }];
}
