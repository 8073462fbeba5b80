// What it costs to hand the PBF importer's items from a decoding thread to the reading
// thread, per item, each way: V8's structured clone (what postMessage does with objects),
// a JSON string, and import-item-codec.ts's NUL-joined strings beside a Float64Array (what the
// importer sends). The receiving side is the one that matters: it is the thread that
// also writes the database. Ratios against the structured clone, measured in the same run.
//
//   npm run build && node bench/pbf-transfer.js [--pbf FILE] [--rounds 5]
//
// Default input: the Liechtenstein extract in ../shared/data (use a synthetic country
// extract of bench/synthetic-country-pbf.js for more items).
import { resolve } from "node:path";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { deserialize, serialize } from "node:v8";
import { decodeItems, encodeItems } from "../dist/places/import/importers/import-item-codec.js";
import { OsmPbfImporter } from "../dist/places/import/importers/osm-pbf.js";

const { values: args } = parseArgs({
  options: {
    pbf: { type: "string", default: resolve(import.meta.dirname, "../../shared/data/liechtenstein-2026-03-29.osm.pbf") },
    rounds: { type: "string", default: "5" },
  },
});

const batches = [];
for await (const batch of new OsmPbfImporter(args.pbf, { threads: 0 }).readBatches({})) batches.push(batch);
const items = batches.reduce((n, b) => n + b.length, 0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const microsPerItem = (f) => {
  const started = performance.now();
  const out = f();
  return [((performance.now() - started) * 1000) / items, out];
};

const ways = {
  "structured clone": [(b) => serialize(b), (s) => deserialize(s)],
  JSON: [(b) => JSON.stringify(b), (s) => JSON.parse(s)],
  "strings + numbers (import-item-codec)": [(b) => encodeItems(b), (s) => decodeItems(s)],
};
const figures = {};
for (let round = 0; round < Number(args.rounds); round++) {
  for (const [name, [send, receive]] of Object.entries(ways)) {
    const [sent, wire] = microsPerItem(() => batches.map(send));
    const [received] = microsPerItem(() => wire.map(receive));
    (figures[name] ??= { send: [], receive: [], bytes: 0 }).send.push(sent);
    figures[name].receive.push(received);
    figures[name].bytes = wire.reduce((n, w) => n + (typeof w === "string" ? w.length : w.text !== undefined ? w.text.length + w.numbers.byteLength : w.byteLength), 0) / items;
  }
}
const base = figures["structured clone"];
console.log(`Items across threads: ${items} items of ${args.pbf} in ${batches.length} batches, median of ${args.rounds} (node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
console.table(
  Object.fromEntries(
    Object.entries(figures).map(([name, f]) => [
      name,
      {
        "send µs/item": median(f.send).toFixed(2),
        "receive µs/item": median(f.receive).toFixed(2),
        "receive vs clone": (median(f.receive) / median(base.receive)).toFixed(2) + "×",
        "size/item": Math.round(f.bytes),
      },
    ]),
  ),
);
