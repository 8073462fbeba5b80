import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toNodeHandler } from "h3/node";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { builtBin } from "../helpers/built-bin.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { runBin, runToEnd, type BinResult } from "../helpers/serve-bin.js";

/** Run a shell pipeline (bash, so PIPESTATUS tells each command's exit status). */
function shell(script: string, env: NodeJS.ProcessEnv): Promise<BinResult> {
  return runToEnd("bash", ["-c", script], env);
}

/** A local data directory with contacts and bakeries around Vaduz, and the environment the spawned CLI runs in. */
async function localData(contacts: number, places: number) {
  const dataDir = tempDir();
  const instance = createTestInstance({ dataDir });
  for (let i = 0; i < contacts; i += 500) {
    const n = Math.min(500, contacts - i);
    await instance.services.contacts.addMany(instance.teamId, Array.from({ length: n }, (_, j) => ({ email: `p${i + j}@example.org`, name: `Person ${i + j}` })));
  }
  insertPlaces(
    instance.services.deps.db,
    Array.from({ length: places }, (_, i) => ({
      placeId: `osm:node:${i + 1}`,
      name: `Bakery ${i}`,
      ...offsetKm(VADUZ.lat, VADUZ.lng, (i % 10) * 0.1, Math.floor(i / 10) * 0.1),
      categories: ["bakery"],
      email: `shop${i}@bakery-${i}.li`,
    })),
  );
  insertLocality(instance.services.deps.db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 100 });
  const env = { HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), OUTREACH_DATA_DIR: dataDir, OUTREACH_ENRICH: "0", NO_COLOR: "1" };
  return { instance, env, bin: await builtBin() };
}

describe("the CLI in a pipeline (spawned)", () => {
  it("`| head -1` ends the command quietly with exit 0: no EPIPE stack trace", async () => {
    const { env, bin } = await localData(3000, 200);
    const exportRun = await shell(`node ${bin} contacts export | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`, env);
    expect(exportRun.stdout).toBe("email,name,phone,description,tags,status,id,created_at,updated_at\n");
    expect(exportRun.stderr).toMatch(/exit=0/);
    expect(exportRun.stderr).not.toMatch(/EPIPE|Error|at .*\.js:\d+/);
    const searchRun = await shell(`node ${bin} leads search --location Vaduz --keywords bakery --all --ndjson | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`, env);
    expect(JSON.parse(searchRun.stdout)).toMatchObject({ type: "progress" });
    expect(searchRun.stderr).toMatch(/exit=0/);
    expect(searchRun.stderr).not.toMatch(/EPIPE|Error|at .*\.js:\d+/);
  }, 180_000); // 3,000 encrypted contacts and two spawned CLIs: minutes on a loaded machine.

  it("`leads search --ndjson --all | contacts import -` imports the leads of every page", async () => {
    const { env, bin } = await localData(0, 95);
    const r = await shell(`node ${bin} leads search --location Vaduz --keywords bakery --all --ndjson | node ${bin} contacts import - --json`, env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 95, invalid: 0, skipped: 0 });
  }, 60_000);

  it("--out: a command that fails half-way (the server breaks after three pages) leaves the old file and no temporary file", async () => {
    const instance = createTestInstance();
    await instance.services.contacts.addMany(instance.teamId, Array.from({ length: 650 }, (_, i) => ({ email: `p${i}@example.org`, name: `P ${i}` })));
    const handler = toNodeHandler(createApp(instance.services, { log: () => {} }).h3);
    let requests = 0;
    const server = closeAfterEach(
      createServer((req, res) => {
        if (++requests > 3) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "internal error" }));
        else void handler(req, res);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const folder = tempDir();
    const out = join(folder, "contacts.csv");
    writeFileSync(out, "yesterday's export\n");
    await builtBin();
    const env = { HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), OUTREACH_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, OUTREACH_TOKEN: instance.token, NO_COLOR: "1" };
    const r = await runBin(["contacts", "export", "--out", out], env);
    expect(r.code).toBe(1);
    expect(requests).toBe(4);
    expect(readFileSync(out, "utf8")).toBe("yesterday's export\n");
    expect(readdirSync(folder)).toEqual(["contacts.csv"]);
    // The same export against a working server replaces it whole.
    requests = -100;
    const ok = await runBin(["contacts", "export", "--out", out], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(out, "utf8").trimEnd().split("\n")).toHaveLength(651);
    expect(readdirSync(folder)).toEqual(["contacts.csv"]);
  }, 60_000);
});
