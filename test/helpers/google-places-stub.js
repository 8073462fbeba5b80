// A protocol-faithful Google Places API (New) on 127.0.0.1, for the tests and
// bench/google-tiling.js: Text Search (`POST /v1/places:searchText`) and Place Details
// (`GET /v1/places/{id}`) with the real service's rules that matter to a client:
// the API key in `X-Goog-Api-Key`, a required `X-Goog-FieldMask` (unknown fields refused,
// only the masked fields returned, `nextPageToken` only when masked), `pageSize` 1..20,
// `locationRestriction` as a rectangle only (a circle is refused, as Text Search does),
// page tokens valid only with identical other parameters, at most 60 results per query,
// and Google's error body `{error: {code, message, status}}`.
import { createServer } from "node:http";

const TEXT_SEARCH_FIELDS = new Set([
  "places.id", "places.name", "places.displayName", "places.formattedAddress", "places.location", "places.websiteUri",
  "places.nationalPhoneNumber", "places.internationalPhoneNumber", "places.rating", "places.types", "places.primaryType", "nextPageToken",
]);
const DETAILS_FIELDS = new Set(["id", "name", "displayName", "formattedAddress", "location", "websiteUri", "rating", "types"]);
export const RESULT_CAP = 60;

function googleError(res, code, status, message) {
  res.writeHead(code, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify({ error: { code, message, status } }));
}

/** The place's fields as Google returns them, only those in the mask (with or without the `places.` prefix). */
function masked(place, fields, prefix) {
  const full = {
    id: place.id,
    name: `places/${place.id}`,
    displayName: { text: place.name, languageCode: "en" },
    formattedAddress: place.address,
    location: { latitude: place.lat, longitude: place.lng },
    websiteUri: place.website,
    nationalPhoneNumber: place.nationalPhone,
    internationalPhoneNumber: place.phone,
    rating: place.rating,
    types: place.types,
    primaryType: place.types?.[0],
  };
  const out = {};
  for (const field of fields) {
    const key = field.startsWith(prefix) ? field.slice(prefix.length) : undefined;
    if (key && full[key] !== undefined) out[key] = full[key];
  }
  return out;
}

function matches(place, textQuery) {
  const haystack = `${place.name} ${(place.types ?? []).join(" ").replace(/_/g, " ")}`.toLowerCase();
  return textQuery
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word.replace(/s$/, "")));
}

/**
 * Start the stub. `places`: [{id, name, lat, lng, address, types?, website?, phone?,
 * nationalPhone?, rating?}], in the order Google would rank them. Returns its `url`,
 * the `requests` it received ({path, body, fieldMask}), `failNext(status, googleStatus,
 * message, count?)` to answer the next requests with an error, and `close()`.
 */
export async function startGooglePlacesStub({ places, apiKey = "test-google-key" }) {
  const requests = [];
  const tokens = new Map();
  let failures = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stub");
      const fieldMask = req.headers["x-goog-fieldmask"];
      requests.push({ method: req.method, path: url.pathname, body: raw ? safeJson(raw) : undefined, fieldMask });
      const failure = failures.shift();
      if (failure) return googleError(res, failure.code, failure.status, failure.message);
      if (req.headers["x-goog-api-key"] !== apiKey) {
        return googleError(res, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
      }
      if (typeof fieldMask !== "string" || fieldMask.trim() === "") {
        return googleError(res, 400, "INVALID_ARGUMENT", "FieldMask is a required parameter. See https://cloud.google.com/apis/docs/system-parameters on how to provide it.");
      }
      const fields = fieldMask.split(",").map((f) => f.trim());
      if (req.method === "POST" && url.pathname === "/v1/places:searchText") return textSearch(res, raw, fields);
      const details = /^\/v1\/places\/([^/:]+)$/.exec(url.pathname);
      if (req.method === "GET" && details) {
        const unknown = fields.find((f) => !DETAILS_FIELDS.has(f));
        if (unknown) return googleError(res, 400, "INVALID_ARGUMENT", `Invalid field: ${unknown}`);
        const place = places.find((p) => p.id === decodeURIComponent(details[1]));
        if (!place) return googleError(res, 404, "NOT_FOUND", `Place '${details[1]}' not found.`);
        res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
        return res.end(JSON.stringify(masked(place, fields, "")));
      }
      googleError(res, 404, "NOT_FOUND", `Method not found: ${req.method} ${url.pathname}`);
    });
  });

  function textSearch(res, raw, fields) {
    const unknown = fields.find((f) => !TEXT_SEARCH_FIELDS.has(f));
    if (unknown) return googleError(res, 400, "INVALID_ARGUMENT", `Invalid field: ${unknown}`);
    const body = safeJson(raw);
    if (!body || typeof body.textQuery !== "string" || body.textQuery.trim() === "") {
      return googleError(res, 400, "INVALID_ARGUMENT", "Missing required field: text_query.");
    }
    const pageSize = body.pageSize ?? 20;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 20) return googleError(res, 400, "INVALID_ARGUMENT", "page_size must be between 1 and 20.");
    const restriction = body.locationRestriction;
    if (restriction && restriction.circle) {
      return googleError(res, 400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"circle\" at 'location_restriction': Cannot find field.");
    }
    const rect = restriction?.rectangle;
    if (restriction && (!rect?.low || !rect?.high)) return googleError(res, 400, "INVALID_ARGUMENT", "location_restriction.rectangle needs low and high.");
    const { pageToken, ...rest } = body;
    const signature = JSON.stringify({ ...rest, pageSize });
    let offset = 0;
    if (pageToken !== undefined) {
      const state = tokens.get(pageToken);
      if (!state || state.signature !== signature) {
        return googleError(res, 400, "INVALID_ARGUMENT", "Request contains an invalid argument.");
      }
      offset = state.offset;
    }
    const inside = (p) =>
      !rect || (p.lat >= rect.low.latitude && p.lat <= rect.high.latitude && p.lng >= rect.low.longitude && p.lng <= rect.high.longitude);
    const all = places.filter((p) => inside(p) && matches(p, body.textQuery)).slice(0, RESULT_CAP);
    const page = all.slice(offset, offset + pageSize);
    const answer = { places: page.map((p) => masked(p, fields, "places.")) };
    const next = offset + page.length;
    if (next < all.length && fields.includes("nextPageToken")) {
      const token = `tok-${tokens.size + 1}-${Math.random().toString(36).slice(2)}`;
      tokens.set(token, { signature, offset: next });
      answer.nextPageToken = token;
    }
    if (answer.places.length === 0) delete answer.places;
    res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
    res.end(JSON.stringify(answer));
  }

  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    server,
    /** Answer the next `count` requests with this error (e.g. 503 UNAVAILABLE, 429 RESOURCE_EXHAUSTED). */
    failNext(code, status, message, count = 1) {
      failures = Array.from({ length: count }, () => ({ code, status, message }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * A synthetic city for tiling: `count` restaurants spread around `center`, `inside` of
 * them within `radiusKm`, deterministic (a seeded generator), ranked in a shuffled order.
 */
export function syntheticPlaces({ center, radiusKm, count, inside, seed = 7 }) {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const kmLat = 1 / 111.2;
  const kmLng = 1 / (111.32 * Math.cos((center.lat * Math.PI) / 180));
  const places = [];
  for (let i = 0; i < count; i++) {
    const within = i < inside;
    const distance = within ? Math.sqrt(random()) * radiusKm * 0.98 : radiusKm * (1.05 + random() * 0.9);
    const angle = random() * 2 * Math.PI;
    places.push({
      id: `ChIJsynthetic${String(i).padStart(4, "0")}`,
      name: `Restaurant ${i}`,
      lat: center.lat + distance * Math.sin(angle) * kmLat,
      lng: center.lng + distance * Math.cos(angle) * kmLng,
      address: `Street ${i}, 98000 Synthetic`,
      types: ["restaurant", "food", "point_of_interest", "establishment"],
      website: `https://restaurant-${i}.example.com/`,
      phone: `+377 93 ${String(100000 + i).slice(0, 2)} ${String(100000 + i).slice(2, 4)} ${String(100000 + i).slice(4, 6)}`,
      rating: 3 + (i % 20) / 10,
      inside: within,
    });
  }
  // Google's ranking is not by distance: shuffle.
  for (let i = places.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [places[i], places[j]] = [places[j], places[i]];
  }
  return places;
}
