import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";
import { startTestServer } from "../helpers/server.js";

/** The real CLI, in-process, against a real server over a socket. */
function runLeads(argv: string[], env: NodeJS.ProcessEnv) {
  return runCli(argv, { env: cliEnv(env) });
}

async function setup() {
  const sites = await startFixtureSites({ "garage.de": { "/": "<p>werkstatt@garage.de</p>" }, "empty.de": { "/": "<p>nothing</p>" } });
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"] } });
  t.services.enrichment.useResolver(fixtureLookup);
  const server = await startTestServer(t.services);
  const issue = () => t.services.enrichment.issueRetryToken(t.teamId, [placeLead("1", sites.url("garage.de")), placeLead("2", sites.url("empty.de"))]);
  return { env: { OUTREACH_BASE_URL: server.url, OUTREACH_TOKEN: t.token }, issue };
}

describe("outreach leads retry", () => {
  it("prints the retried leads as tab-separated rows when piped", async () => {
    const { env, issue } = await setup();
    const result = await runLeads(["leads", "retry", issue()], env);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").slice(0, -1)).toEqual([
      expect.stringMatching(/^Business 1\twerkstatt@garage\.de\thttp:\/\/garage\.de:\d+\/\t\t$/),
      expect.stringMatching(/^Business 2\t\thttp:\/\/empty\.de:\d+\/\t\t$/),
    ]);
    expect(result.stderr).toContain("2 lead(s) enriched, 1 with an email");
  });

  it("prints JSON with --json and the stream with --ndjson", async () => {
    const { env, issue } = await setup();
    const json = await runLeads(["leads", "retry", issue(), "--json"], env);
    expect(JSON.parse(json.stdout).leads.map((l: { email: string | null }) => l.email)).toEqual(["werkstatt@garage.de", null]);
    const ndjson = await runLeads(["leads", "retry", issue(), "--ndjson"], env);
    const lines = ndjson.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    expect(lines.at(-1)!.type).toBe("complete");
    expect(lines.slice(0, -1).every((l) => l.type === "progress")).toBe(true);
  });

  it("writes CSV with a header to --out", async () => {
    const { env, issue } = await setup();
    const out = join(tempDir(), "retried.csv");
    const result = await runLeads(["leads", "retry", issue(), "--out", out], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    const csv = readFileSync(out, "utf8").trim().split("\n");
    expect(csv[0]).toMatch(/^place_id,name,address,lat,lng,distance_km,website,domain,phone,email,rating,categories,linkedin,/);
    expect(csv[1]).toContain("werkstatt@garage.de");
    expect(csv).toHaveLength(3);
  });

  it("--out chooses the format as leads search does: the extension, unless a flag says otherwise", async () => {
    const { env, issue } = await setup();
    const dir = tempDir();
    expect((await runLeads(["leads", "retry", issue(), "--out", join(dir, "r.tsv")], env)).code).toBe(0);
    expect(readFileSync(join(dir, "r.tsv"), "utf8").split("\n")[0]).toMatch(/^Business 1\twerkstatt@garage\.de\t/);
    await runLeads(["leads", "retry", issue(), "--out", join(dir, "r.jsonl")], env);
    expect((JSON.parse(readFileSync(join(dir, "r.jsonl"), "utf8").trim().split("\n").at(-1)!) as { type: string }).type).toBe("complete");
    await runLeads(["leads", "retry", issue(), "--json", "--out", join(dir, "r.csv")], env);
    expect(JSON.parse(readFileSync(join(dir, "r.csv"), "utf8")).leads).toHaveLength(2);
  });

  it("exits 3 for a used token and 2 for a malformed one or conflicting formats", async () => {
    const { env, issue } = await setup();
    const token = issue();
    expect((await runLeads(["leads", "retry", token, "--json"], env)).code).toBe(0);
    const again = await runLeads(["leads", "retry", token], env);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("unknown, expired, already used");
    expect((await runLeads(["leads", "retry", "not-a-uuid"], env)).code).toBe(2);
    expect((await runLeads(["leads", "retry", issue(), "--json", "--csv"], env)).code).toBe(2);
  });

  it("has --help with an example", async () => {
    const result = await runLeads(["leads", "retry", "--help"], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("outreach leads retry 3f1c2b9e");
  });
});
