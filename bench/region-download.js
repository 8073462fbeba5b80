// `outreach places download`: throughput of the Geofabrik client (progress, MD5 of the
// whole file, part file and rename) against a bare fetch of the same bytes piped to a
// file (the baseline, same run, same local server), and resume correctness: downloads
// broken off at random offsets, then run again, must give the published MD5 byte for byte.
// The server is test/helpers/geofabrik-stub.js on 127.0.0.1 serving a synthetic extract.
//
//   npm run build && node bench/region-download.js [megabytes=64] [runs=5] [resumes=10]
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GeofabrikClient } from "../dist/places/import/geofabrik.js";
import { startGeofabrikStub } from "../test/helpers/geofabrik-stub.js";
import { median } from "./fixtures/server.js";

const megabytes = Number(process.argv[2] ?? 64);
const runs = Number(process.argv[3] ?? 5);
const resumes = Number(process.argv[4] ?? 10);
const bytes = randomBytes(megabytes * 1_000_000);
const md5 = createHash("md5").update(bytes).digest("hex");
const stub = await startGeofabrikStub({ regions: [{ id: "synthetic", name: "Synthetic", path: "/synthetic-latest.osm.pbf", bytes }] });
const url = `${stub.url}/synthetic-latest.osm.pbf`;
const dir = mkdtempSync(join(tmpdir(), "outreach-download-bench-"));
const client = new GeofabrikClient(stub.url, "outreach-bench/0.1");

const rate = (seconds) => megabytes / seconds;
const ours = [];
const bare = [];
try {
  for (let run = 0; run < runs; run++) {
    let started = performance.now();
    const response = await fetch(url);
    await pipeline(Readable.fromWeb(response.body), createWriteStream(join(dir, "bare.pbf")));
    bare.push(rate((performance.now() - started) / 1000));
    started = performance.now();
    const path = join(dir, `ours-${run}.pbf`);
    await client.download(url, path, md5, { region: "synthetic", onProgress: () => {} });
    ours.push(rate((performance.now() - started) / 1000));
    rmSync(path);
  }
  let correct = 0;
  for (let i = 0; i < resumes; i++) {
    const path = join(dir, `resume-${i}.pbf`);
    const cut = Math.floor(Math.random() * (bytes.length - 1)) + 1;
    stub.cutNext(cut);
    const first = await client.download(url, path, md5, { region: "synthetic" }).then(
      () => "completed",
      () => "broke off",
    );
    const second = await client.download(url, path, md5, { region: "synthetic" });
    const same = createHash("md5").update(readFileSync(path)).digest("hex") === md5;
    if (first === "broke off" && second.resumed && same) correct++;
    else console.log(`resume ${i}: cut at ${cut}: first ${first}, resumed ${second.resumed}, md5 ${same ? "ok" : "WRONG"}`);
    rmSync(path);
  }
  console.log(`download of a ${megabytes} MB extract over loopback, ${runs} runs:`);
  console.log(`  outreach (progress, MD5, part file): median ${median(ours).toFixed(0)} MB/s`);
  console.log(`  bare fetch piped to a file (baseline): median ${median(bare).toFixed(0)} MB/s`);
  console.log(`  ratio: ${(median(ours) / median(bare)).toFixed(2)}× the baseline's throughput`);
  console.log(`resume: ${correct} of ${resumes} downloads broken off at a random offset resumed with Range and matched the MD5`);
} finally {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
}
