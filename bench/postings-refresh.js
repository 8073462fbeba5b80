// The packed postings' rebuild after an import (`PlacePostingsRepo.refresh`, on the calling
// thread alone) against its parallel form (`refreshInParallel`: threads read and encode the
// chunks of cells, the calling thread writes them), on the same index with every cell
// stale and its postings gone, as after a fresh import. Runs alternate serial, parallel, …
// each on a fresh copy of the same file; wall and CPU seconds (all threads) per run,
// medians and the parallel/serial ratio; every run's postings must be byte-identical.
// Plain Node ESM over dist/ (run `npm run build`).
//
//   node bench/postings-refresh.js [--from DIR] [--runs 3] [--threads N]
//
// --from: a data directory holding the index (default: bench/search.js's cached 1M index,
// $TMPDIR/outreach-bench-search-1000000; build it with `node bench/search.js` first). It is
// only read: the runs work on copies in a temporary directory, removed at the end.
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { openDatabase } from "../dist/store/db.js";
import { PlacePostingsRepo } from "../dist/places/store/place-postings.js";
import { cellSql } from "../dist/places/store/geo-grid.js";

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: join(tmpdir(), "outreach-bench-search-1000000") },
    runs: { type: "string", default: "3" },
    threads: { type: "string" },
  },
});
const RUNS = Number(args.runs);
const threads = args.threads === undefined ? undefined : Number(args.threads);
const work = mkdtempSync(join(tmpdir(), "outreach-bench-postings-"));

try {
  // The starting point: the index's places, no postings, every cell stale, compacted.
  const base = join(work, "base.db");
  const source = new Database(join(args.from, "outreach.db"), { readonly: true, fileMustExist: true });
  await source.backup(base);
  source.close();
  const prepared = new Database(base);
  const places = prepared.prepare("SELECT count(*) FROM places").pluck().get();
  prepared.exec(`DELETE FROM place_postings; DELETE FROM place_cells_stale;
    INSERT INTO place_cells_stale (cell) SELECT DISTINCT ${cellSql("lat", "lng")} FROM places; VACUUM;`);
  const cells = prepared.prepare("SELECT count(*) FROM place_cells_stale").pluck().get();
  prepared.close();

  const runs = { serial: [], parallel: [] };
  const digests = new Set();
  for (let i = 0; i < RUNS; i++) {
    for (const mode of ["serial", "parallel"]) {
      const file = join(work, `${mode}-${i}.db`);
      copyFileSync(base, file);
      const db = openDatabase(file);
      const repo = new PlacePostingsRepo(db);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const rebuilt = mode === "serial" ? repo.refresh() : await repo.refreshInParallel({ threads });
      const wall = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      if (rebuilt !== cells) throw new Error(`${mode}: ${rebuilt} cells rebuilt of ${cells}`);
      const hash = createHash("sha256");
      for (const [term, cell, blob] of db.prepare("SELECT term, cell, postings FROM place_postings ORDER BY term, cell").raw().iterate()) hash.update(`${term}\0${cell}\0`).update(blob);
      digests.add(hash.digest("hex"));
      db.close();
      rmSync(file, { force: true });
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      runs[mode].push({ wall, cpu: (used.user + used.system) / 1e6 });
      process.stderr.write(`${mode} ${i + 1}: ${wall.toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU (load ${loadavg()[0].toFixed(2)})\n`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const m = (mode, key) => median(runs[mode].map((r) => r[key]));
  console.log(`\nPostings rebuild of ${places.toLocaleString("en")} places in ${cells.toLocaleString("en")} stale cells, ${availableParallelism()} cores, ` +
    `threads ${threads ?? "default"}, medians of ${RUNS} runs each (alternating)\n`);
  console.log("| rebuild | wall s | CPU s | places/s (wall) |");
  console.log("|---|---|---|---|");
  for (const mode of ["serial", "parallel"]) console.log(`| ${mode} | ${m(mode, "wall").toFixed(2)} | ${m(mode, "cpu").toFixed(2)} | ${Math.round(places / m(mode, "wall")).toLocaleString("en")} |`);
  console.log(`\nparallel / serial: wall ×${(m("parallel", "wall") / m("serial", "wall")).toFixed(2)}, CPU ×${(m("parallel", "cpu") / m("serial", "cpu")).toFixed(2)}; ` +
    `postings ${digests.size === 1 ? "identical in every run" : `DIFFER (${digests.size} distinct results)`}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  if (digests.size !== 1) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
