// Replacement benchmark: what `places import FILE --replace` costs now that it is atomic
// (staged in a TEMP table, swapped in by one transaction: src/places/store/place-staging.ts), and
// how long its swap holds the database's write lock, against a plain re-import of the same
// file in the same run (the baseline: batches written in place, no staging).
//
//   npm run build && node bench/replace.js [--places 200000] [--changed 0.1]
//
// A synthetic NDJSON list (no data needed): N places over a country-sized box, then the same
// list with a share of them renamed. Prints seconds per step and the ratio to the baseline.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openInstance } from "../dist/services/instance.js";

const { values } = parseArgs({ options: { places: { type: "string", default: "200000" }, changed: { type: "string", default: "0.1" } } });
const N = Number(values.places);
const CHANGED = Number(values.changed);
const dir = mkdtempSync(join(tmpdir(), "outreach-bench-replace-"));

function writeList(file, renameShare) {
  const rows = [];
  for (let i = 0; i < N; i++) {
    // Deterministic spread over 5 × 5 degrees, a few shop words per name.
    const lat = 47 + ((i * 7919) % 5000) / 1000;
    const lng = 6 + ((i * 104729) % 5000) / 1000;
    const renamed = i < N * renameShare ? " am Markt" : "";
    rows.push(JSON.stringify({ placeId: `p${i}`, name: `${["Bäckerei", "Café", "Metzgerei", "Apotheke"][i % 4]} ${i}${renamed}`, lat, lng, city: `Town ${i % 500}` }));
  }
  writeFileSync(file, rows.join("\n") + "\n");
}

async function timed(instance, file, replace) {
  let swapStarted = 0;
  let swapSeconds = null;
  const started = performance.now();
  const summary = await instance.services.placesImport.importFile(file, {
    replace,
    onProgress: (p) => {
      if (p.finishing?.step === "replacing") swapStarted = performance.now();
      else if (p.finishing?.step === "search index" && swapStarted && swapSeconds === null) swapSeconds = (performance.now() - swapStarted) / 1000;
    },
  });
  return { seconds: (performance.now() - started) / 1000, swapSeconds, summary };
}

try {
  const same = join(dir, "list.ndjson");
  writeList(same, 0);
  const instance = openInstance({ dataDir: join(dir, "data"), env: { ...process.env, OUTREACH_SECRET_KEY: "" } });
  try {
    const first = await timed(instance, same, false);
    console.log(`first import: ${N.toLocaleString("en")} places in ${first.seconds.toFixed(1)} s`);
    const sameReplace = await timed(instance, same, true);
    console.log(`--replace, same file: ${sameReplace.seconds.toFixed(1)} s (swap holds the write lock ${sameReplace.swapSeconds.toFixed(2)} s; ${JSON.stringify({ ...sameReplace.summary, skipped: undefined, rejectedRows: undefined, source: undefined })})`);
    writeList(same, CHANGED);
    const changedReplace = await timed(instance, same, true);
    console.log(`--replace, ${CHANGED * 100} % renamed: ${changedReplace.seconds.toFixed(1)} s (swap ${changedReplace.swapSeconds.toFixed(2)} s; updated ${changedReplace.summary.updated})`);
    // Baseline: a plain re-import of a file with the same share renamed back (the same amount of change).
    writeList(same, 0);
    const plain = await timed(instance, same, false);
    console.log(`plain re-import, ${CHANGED * 100} % changed (baseline): ${plain.seconds.toFixed(1)} s (updated ${plain.summary.updated})`);
    console.log(`ratio --replace / plain re-import (same change): ${(changedReplace.seconds / plain.seconds).toFixed(2)}`);
  } finally {
    instance.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
