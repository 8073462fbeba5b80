// Google Places Text Search restricts only to rectangles and stops at 60 results a query:
// how much of a strict circle does the tiling provider find, and at what request cost?
// A synthetic Google (test/helpers/google-places-stub.js, protocol-faithful: rectangle
// restriction, pages of 20, the 60 cap) holds 150 restaurants, 100 of them inside a 10 km
// circle (ground truth: the generator places each one inside or outside the circle).
// Printed per run and as medians over the seeds: the share of the circle's places found
// and the requests spent, against the naive single query (the circle's bounding box, its
// pages followed: at most 3 requests and 60 results) measured in the same run.
//
//   npm run build && node bench/google-tiling.js [seeds=7]
import { GooglePlacesProvider } from "../dist/places/sources/google-places.js";
import { startGooglePlacesStub, syntheticPlaces } from "../test/helpers/google-places-stub.js";
import { median } from "./fixtures/server.js";

const seeds = Number(process.argv[2] ?? 7);
const CENTER = { lat: 43.7384, lng: 7.4246 };
const RADIUS_KM = 10;
const signal = new AbortController().signal;

async function tiled(stub, inside) {
  const google = new GooglePlacesProvider({ apiKey: stub.apiKey, baseUrl: stub.url, timeoutMs: 10_000, maxRequests: 1000 });
  const before = stub.requests.length;
  const found = new Set();
  let cursor = null;
  do {
    const page = await google.search({ center: CENTER, radiusKm: RADIUS_KM, keywords: "restaurant", cursor, signal });
    for (const lead of page.leads) found.add(lead.placeId.replace(/^google:/, ""));
    cursor = page.nextCursor;
  } while (cursor);
  return { share: [...inside].filter((id) => found.has(id)).length / inside.size, requests: stub.requests.length - before, outside: [...found].filter((id) => !inside.has(id)).length };
}

/** One Text Search over the circle's bounding box, pages followed, as a client without tiling would. */
async function naive(stub, inside) {
  const dLat = RADIUS_KM / 111.2;
  const dLng = RADIUS_KM / (111.32 * Math.cos((CENTER.lat * Math.PI) / 180));
  const found = new Set();
  let pageToken;
  let requests = 0;
  do {
    requests++;
    const res = await fetch(`${stub.url}/v1/places:searchText`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": stub.apiKey, "x-goog-fieldmask": "places.id,places.location,nextPageToken" },
      body: JSON.stringify({
        textQuery: "restaurant",
        pageSize: 20,
        ...(pageToken ? { pageToken } : {}),
        locationRestriction: { rectangle: { low: { latitude: CENTER.lat - dLat, longitude: CENTER.lng - dLng }, high: { latitude: CENTER.lat + dLat, longitude: CENTER.lng + dLng } } },
      }),
    });
    const body = await res.json();
    for (const p of body.places ?? []) found.add(p.id);
    pageToken = body.nextPageToken;
  } while (pageToken);
  return { share: [...inside].filter((id) => found.has(id)).length / inside.size, requests };
}

const rows = [];
for (let seed = 1; seed <= seeds; seed++) {
  const places = syntheticPlaces({ center: CENTER, radiusKm: RADIUS_KM, count: 150, inside: 100, seed });
  const inside = new Set(places.filter((p) => p.inside).map((p) => p.id));
  const stub = await startGooglePlacesStub({ places });
  try {
    const t = await tiled(stub, inside);
    const n = await naive(stub, inside);
    rows.push({ seed, tiledShare: t.share, tiledRequests: t.requests, outsideReturned: t.outside, naiveShare: n.share, naiveRequests: n.requests });
    console.log(`seed ${seed}: tiled ${(t.share * 100).toFixed(0)} % in ${t.requests} requests (${t.outside} outside returned); naive ${(n.share * 100).toFixed(0)} % in ${n.requests} requests`);
  } finally {
    await stub.close();
  }
}
const tiledShare = median(rows.map((r) => r.tiledShare));
const naiveShare = median(rows.map((r) => r.naiveShare));
const tiledRequests = median(rows.map((r) => r.tiledRequests));
const naiveRequests = median(rows.map((r) => r.naiveRequests));
console.log(`\nmedian over ${seeds} seeds (150 places, 100 inside a ${RADIUS_KM} km circle):`);
console.log(`  tiled: ${(tiledShare * 100).toFixed(1)} % found (target ≥ 95 %), ${tiledRequests} requests`);
console.log(`  naive single query: ${(naiveShare * 100).toFixed(1)} % found, ${naiveRequests} requests`);
console.log(`  ratio: ${(tiledShare / naiveShare).toFixed(2)}× the places for ${(tiledRequests / naiveRequests).toFixed(1)}× the requests`);
