// Geofabrik's download server on 127.0.0.1, for the tests and bench/region-download.js:
// `/index-v1.json` (GeoJSON features with properties id, parent, name, urls.pbf pointing
// back at this server), each extract at its path with `ETag`, `Last-Modified`,
// `Accept-Ranges: bytes` and HTTP Range (206, `If-Range`, 416), and `<file>.md5` beside it
// in md5sum's format.
import { createHash } from "node:crypto";
import { createServer } from "node:http";

/**
 * `regions`: [{id, parent?, name, path, bytes: Buffer}]. Returns `url`, `requests`
 * ([{path, range}]), `cutNext(afterBytes)` (the next download breaks off after that many
 * bytes, as a dropped connection), `replace(id, bytes)` (a newer extract), `corruptNext()`
 * (the next download's body differs from its MD5), and `close()`.
 */
export async function startGeofabrikStub({ regions, throttleBytesPerSecond = 0 }) {
  const requests = [];
  let cutAfter = null;
  let corrupt = false;
  const versions = new Map(regions.map((r) => [r.id, { ...r, etag: `"${r.id}-1"`, modified: new Date("2026-11-20T00:00:00Z") }]));
  const md5 = (bytes) => createHash("md5").update(bytes).digest("hex");
  let base = "";

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    requests.push({ path: url.pathname, range: req.headers.range, ifRange: req.headers["if-range"], userAgent: req.headers["user-agent"] });
    if (url.pathname === "/index-v1.json") {
      const features = [...versions.values()].map((r) => ({
        type: "Feature",
        properties: { id: r.id, ...(r.parent ? { parent: r.parent } : {}), name: r.name, urls: { pbf: `${base}${r.path}`, "updates": `${base}${r.path.replace(/-latest\.osm\.pbf$/, "-updates")}` } },
        geometry: null,
      }));
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ type: "FeatureCollection", features }));
    }
    const region = [...versions.values()].find((r) => url.pathname === r.path || url.pathname === `${r.path}.md5`);
    if (!region) {
      res.writeHead(404, { "content-type": "text/html" });
      return res.end("<h1>Not Found</h1>");
    }
    if (url.pathname.endsWith(".md5")) {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end(`${md5(region.bytes)}  ${region.path.split("/").pop()}\n`);
    }
    let body = region.bytes;
    if (corrupt) {
      corrupt = false;
      body = Buffer.from(body);
      body[body.length >> 1] ^= 0xff;
    }
    const headers = { "content-type": "application/octet-stream", "accept-ranges": "bytes", etag: region.etag, "last-modified": region.modified.toUTCString() };
    let start = 0;
    let status = 200;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const ifRange = req.headers["if-range"];
    if (range && (!ifRange || ifRange === region.etag || ifRange === region.modified.toUTCString())) {
      start = Number(range[1]);
      if (start >= body.length) {
        res.writeHead(416, { "content-range": `bytes */${body.length}` });
        return res.end();
      }
      status = 206;
      headers["content-range"] = `bytes ${start}-${body.length - 1}/${body.length}`;
    }
    const slice = body.subarray(start);
    res.writeHead(status, { ...headers, "content-length": String(slice.length) });
    if (cutAfter !== null) {
      const cut = cutAfter;
      cutAfter = null;
      res.write(slice.subarray(0, cut), () => setTimeout(() => res.destroy(), 20));
      return;
    }
    if (!throttleBytesPerSecond) return res.end(slice);
    // Served in 64 KiB chunks at a steady rate (the bench's "slow server").
    let at = 0;
    const chunk = 65536;
    const next = () => {
      if (at >= slice.length) return res.end();
      res.write(slice.subarray(at, at + chunk));
      at += chunk;
      setTimeout(next, (chunk / throttleBytesPerSecond) * 1000);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: base,
    requests,
    md5Of: (id) => md5(versions.get(id).bytes),
    cutNext(afterBytes) {
      cutAfter = afterBytes;
    },
    corruptNext() {
      corrupt = true;
    },
    replace(id, bytes) {
      const old = versions.get(id);
      const n = Number(/-(\d+)"$/.exec(old.etag)[1]) + 1;
      versions.set(id, { ...old, bytes, etag: `"${id}-${n}"`, modified: new Date(old.modified.getTime() + 86_400_000) });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
