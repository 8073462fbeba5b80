// The Overpass API on 127.0.0.1: `POST /api/interpreter` with a form field `data` holding
// Overpass QL, answering Overpass JSON (`{version, generator, osm3s, elements}`; nodes with
// lat/lon, ways and relations with `center` under `out center`), 429 with Retry-After when
// told (no free slot) and 504 (gateway timeout). It interprets the subset of QL the
// client writes, faithfully: `[out:json][timeout:N];`, unions `( … )->.name;` of `nwr`
// statements with tag filters (`["k"="v"]`, `["k"~"re",i]`, `[~"keyre"~"valre"]`) and
// `(around:R,LAT,LON)`, intersections `nwr.a.b;`, id lookups `node(123);`, and
// `out center tags;` of the default set or of `.name`. Anything else is a 400 with
// Overpass's "parse error" page.
import { createServer } from "node:http";

function distanceM(a, b) {
  const rad = (d) => (d * Math.PI) / 180;
  const h = Math.sin(rad(b.lat - a.lat) / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lng - a.lng) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A tiny scanner over QL: string literals with escapes, punctuation, words. */
function parse(ql) {
  let i = 0;
  const ws = () => {
    while (i < ql.length && /\s/.test(ql[i])) i++;
  };
  const expect = (s) => {
    ws();
    if (!ql.startsWith(s, i)) throw new Error(`expected ${s} at ${i}: ${ql.slice(i, i + 30)}`);
    i += s.length;
  };
  const literal = () => {
    ws();
    if (ql[i] !== '"') throw new Error(`expected a string at ${i}`);
    let out = "";
    i++;
    while (ql[i] !== '"') {
      if (i >= ql.length) throw new Error("unterminated string");
      if (ql[i] === "\\") i++;
      out += ql[i++];
    }
    i++;
    return out;
  };
  const word = () => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(ql.slice(i));
    if (!m) throw new Error(`expected a word at ${i}`);
    i += m[0].length;
    return m[0];
  };
  const settings = {};
  ws();
  while (ql[i] === "[") {
    i++;
    const name = word();
    expect(":");
    const m = /^[^\]]+/.exec(ql.slice(i));
    settings[name] = m[0];
    i += m[0].length;
    expect("]");
    ws();
  }
  expect(";");
  const statements = [];
  // A query statement: nwr|node|way|relation, then filters, sets, around or an id.
  const query = () => {
    const type = word();
    const q = { type, filters: [], sets: [], around: null, id: null };
    for (;;) {
      ws();
      if (ql[i] === "[") {
        i++;
        ws();
        if (ql[i] === "~") {
          i++;
          const key = literal();
          expect("~");
          const value = literal();
          q.filters.push({ kind: "keyRegex", key: new RegExp(key), value: new RegExp(value) });
        } else {
          const key = literal();
          ws();
          if (ql[i] === "=") {
            i++;
            q.filters.push({ kind: "equals", key, value: literal() });
          } else {
            expect("~");
            const value = literal();
            ws();
            let flags = "";
            if (ql[i] === ",") {
              i++;
              flags = word() === "i" ? "i" : "";
            }
            q.filters.push({ kind: "regex", key, value: new RegExp(value, flags) });
          }
        }
        expect("]");
      } else if (ql[i] === "(") {
        i++;
        ws();
        if (ql.startsWith("around:", i)) {
          i += "around:".length;
          const m = /^([\d.]+),(-?[\d.]+),(-?[\d.]+)/.exec(ql.slice(i));
          i += m[0].length;
          q.around = { r: Number(m[1]), lat: Number(m[2]), lng: Number(m[3]) };
        } else {
          const m = /^\d+/.exec(ql.slice(i));
          i += m[0].length;
          q.id = Number(m[0]);
        }
        expect(")");
      } else if (ql[i] === ".") {
        i++;
        q.sets.push(word());
      } else break;
    }
    return q;
  };
  for (;;) {
    ws();
    if (i >= ql.length) break;
    if (ql[i] === "(") {
      i++;
      const union = [];
      for (;;) {
        ws();
        if (ql[i] === ")") break;
        union.push(query());
        expect(";");
      }
      expect(")");
      expect("->");
      expect(".");
      const name = word();
      expect(";");
      statements.push({ kind: "union", union, into: name });
    } else if (ql[i] === ".") {
      i++;
      const from = word();
      expect("out");
      const rest = /^[^;]*/.exec(ql.slice(i))[0];
      i += rest.length;
      expect(";");
      statements.push({ kind: "out", from, modes: rest.trim().split(/\s+/) });
    } else if (ql.startsWith("out", i)) {
      i += 3;
      const rest = /^[^;]*/.exec(ql.slice(i))[0];
      i += rest.length;
      expect(";");
      statements.push({ kind: "out", from: "_", modes: rest.trim().split(/\s+/) });
    } else {
      const q = query();
      expect(";");
      statements.push({ kind: "union", union: [q], into: "_" });
    }
  }
  return { settings, statements };
}

function matches(el, q, sets) {
  if (q.type !== "nwr" && q.type !== el.type) return false;
  if (q.id !== null && el.id !== q.id) return false;
  for (const name of q.sets) if (!sets[name]?.has(el)) return false;
  const tags = el.tags ?? {};
  for (const f of q.filters) {
    if (f.kind === "equals" && tags[f.key] !== f.value) return false;
    if (f.kind === "regex" && (tags[f.key] === undefined || !f.value.test(tags[f.key]))) return false;
    if (f.kind === "keyRegex" && !Object.entries(tags).some(([k, v]) => f.key.test(k) && f.value.test(v))) return false;
  }
  if (q.around && distanceM({ lat: q.around.lat, lng: q.around.lng }, el) > q.around.r) return false;
  return true;
}

/**
 * `elements`: [{type: "node"|"way"|"relation", id, lat, lng, tags}] (a way's lat/lng is its
 * centre). Options: `latencyMs` per answer. Returns `url` (the interpreter endpoint),
 * `queries` (the QL received), `maxConcurrent`, `failNext(status, retryAfterSeconds?)`.
 */
export async function startOverpassStub({ elements, latencyMs = 0 }) {
  const queries = [];
  let failures = [];
  let inFlight = 0;
  const stats = { maxConcurrent: 0 };
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      inFlight++;
      stats.maxConcurrent = Math.max(stats.maxConcurrent, inFlight);
      setTimeout(() => {
        inFlight--;
        answer(req, res, raw);
      }, latencyMs);
    });
  });
  function answer(req, res, raw) {
    const url = new URL(req.url ?? "/", "http://stub");
    if (req.method !== "POST" || url.pathname !== "/api/interpreter") {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
    }
    const ql = new URLSearchParams(raw).get("data") ?? "";
    queries.push({ ql, userAgent: req.headers["user-agent"] });
    const failure = failures.shift();
    if (failure) {
      res.writeHead(failure.status, { "content-type": "text/html; charset=utf-8", ...(failure.retryAfter !== undefined ? { "retry-after": String(failure.retryAfter) } : {}) });
      return res.end(failure.status === 429 ? "<p>rate_limited: Too many requests.</p>" : "<p>The server is probably too busy to handle your request.</p>");
    }
    let program;
    try {
      program = parse(ql);
    } catch (err) {
      res.writeHead(400, { "content-type": "text/html; charset=utf-8" });
      return res.end(`<p><strong style="color:#FF0000">Error</strong>: line 1: parse error: ${String(err.message).replace(/</g, "&lt;")}</p>`);
    }
    if (program.settings.out !== "json") {
      res.writeHead(400, { "content-type": "text/html" });
      return res.end("<p>Error: this stub answers [out:json] only</p>");
    }
    const sets = {};
    const out = [];
    for (const s of program.statements) {
      if (s.kind === "union") {
        const result = new Set();
        for (const q of s.union) for (const el of elements) if (matches(el, q, sets)) result.add(el);
        sets[s.into] = result;
      } else {
        for (const el of sets[s.from] ?? []) {
          const withCenter = s.modes.includes("center");
          out.push({
            type: el.type,
            id: el.id,
            ...(el.type === "node" ? { lat: el.lat, lon: el.lng } : withCenter ? { center: { lat: el.lat, lon: el.lng } } : {}),
            ...(s.modes.includes("tags") || s.modes.includes("body") ? { tags: el.tags } : {}),
          });
        }
      }
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ version: 0.6, generator: "Overpass API stub", osm3s: { timestamp_osm_base: "2026-11-20T00:00:00Z", copyright: "The data included in this document is from www.openstreetmap.org. The data is made available under ODbL." }, elements: out }));
  }
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/api/interpreter`,
    queries,
    stats,
    failNext(status, retryAfter) {
      failures.push({ status, retryAfter });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
