import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SearchResult } from "../../src/core/schemas/lead.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ, type TestPlace } from "../helpers/places.js";

/**
 * 45 businesses around Vaduz (three pages), two in three with an email; values a
 * spreadsheet would run as formulas, phones that start with "+", categories with spaces.
 */
function businesses(): TestPlace[] {
  return Array.from({ length: 45 }, (_, i) => ({
    placeId: `osm:node:${900 + i}`,
    name: i === 0 ? "=HYPERLINK(\"http://evil.example\",\"Pizzeria\")" : i === 1 ? "@Pizzeria Sole" : `Pizzeria ${i}`,
    ...offsetKm(VADUZ.lat, VADUZ.lng, (i % 7) * 0.25, Math.floor(i / 7) * 0.25),
    categories: ["restaurant", "pizza restaurant"],
    phone: i % 3 === 0 ? null : `+423 23${i % 10} ${String(10 + i).padStart(2, "0")} 00`,
    email: i % 3 === 2 ? null : `info@pizzeria-${i}.li`,
    website: `https://pizzeria-${i}.li/`,
  }));
}

function prepare(places: TestPlace[] = businesses(), env: NodeJS.ProcessEnv = {}) {
  const dataDir = tempDir();
  const instance = createTestInstance({ dataDir });
  insertPlaces(instance.services.deps.db, places);
  insertLocality(instance.services.deps.db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 100 });
  return { env: cliEnv({ OUTREACH_DATA_DIR: dataDir, ...env }), deps: { clock: instance.clock }, instance };
}

const SEARCH = ["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--radius", "10"];

interface ExportedContact {
  email: string;
  name: string;
  phone: string | null;
  description: string | null;
  tags: string[];
}

async function exported(env: NodeJS.ProcessEnv, deps: object): Promise<ExportedContact[]> {
  const r = await runCli(["contacts", "export", "--ndjson"], { env, deps });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? [] : r.stdout.trim().split("\n").map((l) => JSON.parse(l) as ExportedContact);
}

describe("every lead export reads back into contacts", () => {
  const withEmail = businesses().filter((b) => b.email);

  it("--csv --all: every lead with an email, name, phone (with its +), website and categories intact; formulas defused and restored", async () => {
    const { env, deps } = prepare();
    const out = join(tempDir(), "leads.csv");
    const search = await runCli([...SEARCH, "--all", "--csv", "--out", out], { env, deps });
    expect(search.code).toBe(0);
    const csv = readFileSync(out, "utf8");
    // A spreadsheet would run these: the file carries them quoted; phones stay phones.
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""Pizzeria"")"`);
    expect(csv).toContain("'@Pizzeria Sole");
    expect(csv).toContain(",+423 231 11 00,");
    expect(csv.split("\n")[0]).toContain("enrichment_error");

    const imported = await runCli(["contacts", "import", out, "--tag", "pizza"], { env, deps });
    expect(imported.stderr).toMatch(new RegExp(`imported ${withEmail.length} contacts; 0 duplicate, 0 invalid, 15 skipped`));
    expect(imported.code).toBe(0);
    const contacts = await exported(env, deps);
    expect(contacts).toHaveLength(withEmail.length);
    for (const b of withEmail) {
      const c = contacts.find((x) => x.email === b.email)!;
      expect(c).toMatchObject({ name: b.name, phone: b.phone, description: b.website });
      expect(c.tags.sort()).toEqual(["pizza", "pizza restaurant", "restaurant"]);
    }
  });

  it("--ndjson --all piped into `contacts import -`: the leads of every page, not the last page's", async () => {
    const { env, deps } = prepare();
    const search = await runCli([...SEARCH, "--all", "--ndjson"], { env, deps });
    expect(search.code).toBe(0);
    expect(search.stdout.split("\n").filter((l) => l.includes('"type":"complete"'))).toHaveLength(3);
    const imported = await runCli(["contacts", "import", "-"], { env, deps, stdin: search.stdout });
    expect(imported.code).toBe(0);
    expect((await exported(env, deps)).map((c) => c.email).sort()).toEqual(withEmail.map((b) => b.email).sort());
  });

  it("a stream cut off in its last page still gives that page's leads (its last progress line)", async () => {
    const { env, deps } = prepare();
    const search = await runCli([...SEARCH, "--all", "--ndjson"], { env, deps });
    const lines = search.stdout.trimEnd().split("\n");
    const cut = lines.slice(0, lines.length - 1).join("\n") + "\n";
    const imported = await runCli(["contacts", "import", "-"], { env, deps, stdin: cut });
    expect(imported.code).toBe(0);
    expect(await exported(env, deps)).toHaveLength(withEmail.length);
  });

  it("--json of one page and of --all", async () => {
    const { env, deps } = prepare();
    const page = await runCli([...SEARCH, "--json"], { env, deps });
    const firstPage = SearchResult.parse(JSON.parse(page.stdout)).leads.filter((l) => l.email);
    const one = await runCli(["contacts", "import", "-"], { env, deps, stdin: page.stdout });
    expect(one.code).toBe(0);
    expect(await exported(env, deps)).toHaveLength(firstPage.length);
    const all = await runCli([...SEARCH, "--all", "--json"], { env, deps });
    const again = await runCli(["contacts", "import", "-", "--json"], { env, deps, stdin: all.stdout });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: withEmail.length - firstPage.length, duplicates: firstPage.length });
  });

  it("`contacts export` (CSV) reads back cell for cell, formula-like text included", async () => {
    const { env, deps } = prepare([]);
    const people = [
      ["a@example.com", "=1+2", "+41 44 123 45 67", "-starts with a dash", "x"],
      ["b@example.com", "'=already quoted", "(+41) 44 000", "@mention", "y"],
      ["c@example.com", "Plain Name", "", "", "z"],
    ];
    for (const [email, name, phone, description, tag] of people) {
      const r = await runCli(["contacts", "add", "--email", email!, "--name", name!, ...(phone ? ["--phone", phone] : []), ...(description ? ["--description", description] : []), "--tag", tag!], { env, deps });
      expect(r.code, r.stderr).toBe(0);
    }
    const before = await exported(env, deps);
    const file = join(tempDir(), "contacts.csv");
    expect((await runCli(["contacts", "export", "--out", file], { env, deps })).code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("'=1+2");
    // Into a fresh data directory, and out again.
    const fresh = prepare([]);
    const imported = await runCli(["contacts", "import", file], { env: fresh.env, deps: fresh.deps });
    expect(imported.code, imported.stderr).toBe(0);
    const after = await exported(fresh.env, fresh.deps);
    const key = (c: ExportedContact) => [c.email, c.name, c.phone, c.description, c.tags.join()];
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
  });
});

describe("long exports finish", () => {
  it("local mode has no rate limit: 3,000 places, `leads search --all --csv` gives 3,000 rows; a 2,500-contact export is whole", async () => {
    const places: TestPlace[] = Array.from({ length: 3000 }, (_, i) => ({
      placeId: `osm:node:${10_000 + i}`,
      name: `Bakery ${i}`,
      ...offsetKm(VADUZ.lat, VADUZ.lng, ((i % 60) - 30) * 0.05, (Math.floor(i / 60) - 25) * 0.05),
      categories: ["bakery"],
    }));
    // A server's limit (2 a minute) that a local caller must never meet.
    const { env, deps, instance } = prepare(places, { OUTREACH_RATE_LIMIT: "2" });
    const out = join(tempDir(), "all.csv");
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "bakery", "--radius", "5", "--all", "--csv", "--out", out], { env, deps });
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(out, "utf8").trimEnd().split("\n");
    expect(rows).toHaveLength(1 + 3000);
    expect(new Set(rows.slice(1).map((row) => row.split(",")[0])).size).toBe(3000);

    const teamId = instance.teamId;
    const contacts = instance.services.contacts;
    for (let i = 0; i < 2500; i += 500) {
      await contacts.addMany(teamId, Array.from({ length: 500 }, (_, j) => ({ email: `p${i + j}@example.org`, name: `P ${i + j}` })));
    }
    const exportRun = await runCli(["contacts", "export"], { env, deps });
    expect(exportRun.code, exportRun.stderr).toBe(0);
    expect(exportRun.stdout.trimEnd().split("\n")).toHaveLength(1 + 2500);
  }, 120_000);
});

describe("--out is all or nothing", () => {
  it("a failed command leaves an existing file as it was and no temporary file behind", async () => {
    const { env, deps } = prepare();
    const folder = tempDir();
    const out = join(folder, "leads.csv");
    writeFileSync(out, "what was there before\n");
    const r = await runCli(["leads", "search", "--location", "Qwxzzy Flurbington", "--keywords", "pizzeria", "--csv", "--out", out], { env, deps });
    expect(r.code).toBe(2);
    expect(readFileSync(out, "utf8")).toBe("what was there before\n");
    expect(readdirSync(folder)).toEqual(["leads.csv"]);
    const fresh = join(folder, "new.csv");
    expect((await runCli(["leads", "search", "--location", "Qwxzzy Flurbington", "--keywords", "x", "--csv", "--out", fresh], { env, deps })).code).toBe(2);
    expect(existsSync(fresh)).toBe(false);
  });

  it("a folder that does not exist is a usage error before any request", async () => {
    const { env, deps } = prepare();
    const r = await runCli([...SEARCH, "--csv", "--out", join(tempDir(), "missing", "x.csv")], { env, deps });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out .*the folder .*missing does not exist/);
  });
});

describe("empty OUTREACH_* variables count as unset", () => {
  it("OUTREACH_TOKEN= and OUTREACH_BASE_URL= leave local mode working", async () => {
    const { env, deps } = prepare([]);
    const r = await runCli(["whoami", "--json"], { env: { ...env, OUTREACH_TOKEN: "", OUTREACH_BASE_URL: "  " }, deps });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ user: { email: "ada@example.com" } });
  });
});
