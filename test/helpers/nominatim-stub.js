// Nominatim's search API on 127.0.0.1: `GET /search?q=…&format=jsonv2&limit=N` answering a
// JSON array of places ({place_id, lat, lon (strings, as Nominatim sends them),
// display_name, …}); a request without an identifying User-Agent gets 403, as the public
// instance refuses library defaults.
import { createServer } from "node:http";

/** `places`: {"<query as sent, lower-cased>": {lat, lng, name}}. `failNext(status)` answers the next request with it. */
export async function startNominatimStub({ places }) {
  const requests = [];
  let failure = null;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    const userAgent = req.headers["user-agent"] ?? "";
    requests.push({ path: url.pathname, q: url.searchParams.get("q"), format: url.searchParams.get("format"), limit: url.searchParams.get("limit"), userAgent });
    if (failure) {
      const status = failure;
      failure = null;
      res.writeHead(status, { "content-type": "text/html", ...(status === 429 ? { "retry-after": "30" } : {}) });
      return res.end("<html><body>Bandwidth limit exceeded</body></html>");
    }
    if (!userAgent || /^(node|undici|axios|python-requests)/i.test(userAgent)) {
      res.writeHead(403, { "content-type": "text/html" });
      return res.end("<html><body>Access blocked: see the usage policy</body></html>");
    }
    if (url.pathname !== "/search" || url.searchParams.get("format") !== "jsonv2") {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { code: 400, message: "Parameter 'format' must be jsonv2 here" } }));
    }
    const hit = places[(url.searchParams.get("q") ?? "").toLowerCase()];
    const answer = hit
      ? [{ place_id: 1, licence: "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright", osm_type: "node", osm_id: 1, lat: String(hit.lat), lon: String(hit.lng), category: "place", type: "postcode", display_name: hit.name }]
      : [];
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(answer));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    failNext(status) {
      failure = status;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
