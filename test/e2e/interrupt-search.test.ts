import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_FILE_NAME, openDatabase } from "../../src/store/db.js";
import { builtBin } from "../helpers/built-bin.js";
import { cliEnv } from "../helpers/cli.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { tempDir } from "../helpers/data-dir.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";
import { seeded } from "../helpers/seeded-random.js";

/** A website that accepts every request and never answers: the search stays in its enrichment until stopped. */
async function silentSite() {
  const waiters: Array<() => void> = [];
  const held: ServerResponse[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    held.push(res);
    for (const wake of waiters.splice(0)) wake();
  });
  closeAfterEach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  /** Resolves with the next request the site receives (a search has reached its enrichment). */
  const nextRequest = () => new Promise<void>((resolve) => waiters.push(resolve));
  return { port: (server.address() as AddressInfo).port, nextRequest };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A data directory with dentists around Vaduz whose websites never answer, and the CLI's environment. */
async function dentists() {
  const site = await silentSite();
  const env = cliEnv({ OUTREACH_ENRICH: "1", OUTREACH_FETCH_ALLOW: "127.0.0.1/32", OUTREACH_ENRICH_BUDGET_MS: "600000", OUTREACH_ENRICH_SITE_BUDGET_MS: "600000" });
  const dataDir = tempDir();
  const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
  expect(init.code, init.stderr).toBe(0);
  const db = openDatabase(join(dataDir, DATABASE_FILE_NAME));
  insertPlaces(
    db,
    Array.from({ length: 30 }, (_, i) => ({
      placeId: `osm:node:${100 + i}`,
      name: `Dentist ${i}`,
      ...offsetKm(VADUZ.lat, VADUZ.lng, 0.1 * (i % 10), 0.1 * Math.floor(i / 10)),
      categories: ["dentist"],
      website: i % 3 === 0 ? `http://127.0.0.1:${site.port}/dentist-${i}` : null,
    })),
  );
  insertLocality(db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 30 });
  db.close();
  return { site, env: { ...env, OUTREACH_DATA_DIR: dataDir }, dataDir, token: JSON.parse(init.stdout).token as string, bin: await builtBin() };
}

/**
 * Spawn `outreach …args`, send SIGINT `delayMs` after `after` resolves (or after the first
 * byte of stdout when `after` is "first-line"), and collect what it printed.
 */
function interrupt(bin: string, args: string[], env: NodeJS.ProcessEnv, after: Promise<unknown> | "first-line", delayMs: number) {
  const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let onData!: () => void;
  const firstByte = new Promise<void>((resolve) => (onData = resolve));
  child.stdout.on("data", (d) => {
    stdout += d;
    onData();
  });
  child.stderr.on("data", (d) => (stderr += d));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  void (after === "first-line" ? firstByte : after).then(async () => {
    await sleep(delayMs);
    child.kill("SIGINT");
  });
  return closed.then((end) => ({ ...end, stdout, stderr }));
}

/** Exit 130 with one line on stderr ("interrupted"), after whatever the command said before; no stack, no error. */
function expectInterrupted(r: { code: number | null; signal: NodeJS.Signals | null; stderr: string }) {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.code, r.stderr).toBe(130);
  expect(r.stderr).toMatch(/(^|\n)interrupted\n$/);
  expect(r.stderr).not.toMatch(/AbortError|Error:|error|\n\s+at /);
}

describe("Ctrl-C during a lead search (spawned, real SIGINT)", () => {
  it("local mode, at random moments (3 seeds): exit 130, one stderr line, only complete NDJSON lines, --out untouched", async () => {
    const { site, env, bin } = await dentists();
    const search = ["leads", "search", "--location", "Vaduz", "--keywords", "dentist", "--all"];
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed);
      // While the stream runs (after its first line): what was printed are whole JSON lines.
      const ndjson = await interrupt(bin, [...search, "--ndjson"], env, "first-line", random() * 1500);
      expectInterrupted(ndjson);
      expect(ndjson.stdout.endsWith("\n")).toBe(true);
      for (const line of ndjson.stdout.trimEnd().split("\n")) expect(JSON.parse(line)).toMatchObject({ type: "progress" });
      // During enrichment, piped TSV: nothing printed (the rows come at the end).
      const tsv = await interrupt(bin, search, env, site.nextRequest(), random() * 1500);
      expectInterrupted(tsv);
      expect(tsv.stdout).toBe("");
      // At any moment from the start (loading included), with --out: the old file stays as it was, no temporary file.
      const folder = tempDir();
      const out = join(folder, "leads.csv");
      writeFileSync(out, "yesterday's leads\n");
      const toFile = await interrupt(bin, [...search, "--csv", "--out", out], env, Promise.resolve(), random() * 4000);
      // Before Node has run a line of the launcher, SIGINT's default action ends it (the shell's 130 too): then it said nothing.
      if (toFile.signal === "SIGINT") expect(toFile.stderr).toBe("");
      else expectInterrupted(toFile);
      expect(readFileSync(out, "utf8")).toBe("yesterday's leads\n");
      expect(readdirSync(folder)).toEqual(["leads.csv"]);
    }
  }, 300_000); // nine spawned CLIs on a loaded 2-core machine

  it("against `serve`: the client interrupted mid-stream exits 130; the server logs one line for it, no stack, and still answers", async () => {
    const { env, dataDir, token, bin } = await dentists();
    const serve = await spawnServe(dataDir, env);
    const remote = { ...env, OUTREACH_DATA_DIR: "", OUTREACH_BASE_URL: serve.url, OUTREACH_TOKEN: token };
    for (const seed of [1, 2]) {
      const client = await interrupt(bin, ["leads", "search", "--location", "Vaduz", "--keywords", "dentist", "--ndjson"], remote, "first-line", seeded(seed)() * 1500);
      expectInterrupted(client);
      for (const line of client.stdout.trimEnd().split("\n")) expect(JSON.parse(line)).toMatchObject({ type: "progress" });
    }
    // The request's own log line says the client went away (the server sees the connection close).
    for (let i = 0; i < 100 && (serve.stderr().match(/POST \/api\/v1\/map-leads\/search 200 .*\(client went away\)/g) ?? []).length < 2; i++) await sleep(100);
    expect(serve.stderr().match(/POST \/api\/v1\/map-leads\/search 200 .*\(client went away\)/g)).toHaveLength(2);
    expect(serve.stderr()).not.toMatch(/AbortError|internal error|\n\s+at /);
    const health = await fetch(`${serve.url}/healthz`);
    expect(health.status).toBe(200);
    expect(serve.alive()).toBe(true);
  }, 180_000);
});
