import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

async function local() {
  const dataDir = tempDir();
  const env = cliEnv();
  const cli = (args: string[], options: { stdin?: string; tty?: boolean; typed?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runCli(["--data-dir", dataDir, ...args], { env: { ...env, ...options.env }, stdin: options.stdin, tty: options.tty, typed: options.typed });
  const init = await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"]);
  expect(init.code).toBe(0);
  return { dataDir, cli };
}

/** What `outreach leads search --csv` prints (the contract in the brief). */
const LEADS_CSV = [
  "place_id,name,address,lat,lng,distance_km,website,domain,phone,email,rating,categories,linkedin,facebook,twitter,instagram,business_summary",
  'osm:n1,Zahnarzt Frick,"Städtle 1, 9490 Vaduz",47.14,9.52,0.2,https://frick.example,frick.example,+423 232 00 00,praxis@frick.example,4.5,dentist; health,,,,,"Family dentist, since 1990"',
  "osm:n2,Dental Lab Beck,Aeulestrasse 5 9490 Vaduz,47.13,9.51,0.9,,,,,,dentist,,,,,",
  "osm:n3,Smile AG,Landstrasse 3 9494 Schaan,47.16,9.5,2.1,https://smile.example,smile.example,+423 111,not-an-email,3.9,dentist,,,,,",
  "osm:n4,Praxis Frick II,Städtle 2 9490 Vaduz,47.14,9.52,0.2,,,,PRAXIS@frick.example,,dentist,,,,,",
].join("\n");

const lead = (n: number, email: string | null) => ({
  placeId: `osm:n${n}`,
  name: `Bakery ${n}`,
  address: `Street ${n}, Vaduz`,
  lat: 47.1,
  lng: 9.5,
  website: null,
  domain: null,
  phone: `+423 000 ${n}`,
  rating: null,
  categories: ["bakery"],
  email,
  socials: null,
});

describe("outreach contacts", () => {
  it("adds, lists, shows, updates and removes a contact", async () => {
    const { cli } = await local();
    const added = await cli(["contacts", "add", "--email", "ada@example.com", "--name", "Ada Lovelace", "--tag", "lead", "--tag", "london"]);
    expect(added.code).toBe(0);
    const id = added.stdout.trim();
    expect(id).toMatch(/^ct_/);
    expect((await cli(["contacts", "add", "--email", "ADA@example.com", "--name", "Again"])).code).toBe(5);

    const listed = await cli(["contacts", "list", "--search", "ADA@", "--tag", "london", "--status", "active"]);
    expect(listed.stdout).toBe(`${id}\tada@example.com\tAda Lovelace\t\tactive\tlead, london\n`);
    expect((await cli(["contacts", "list", "--limit", "101"])).code).toBe(2);

    const updated = await cli(["contacts", "update", id, "--phone", "+44 20 7946 0000", "--clear-tags", "--json"]);
    expect(JSON.parse(updated.stdout).contact).toMatchObject({ phone: "+44 20 7946 0000", tags: [] });
    const shown = await cli(["contacts", "show", id]);
    expect(shown.stdout).toContain("phone\t+44 20 7946 0000\n");

    const refused = await cli(["contacts", "rm", id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/without --yes/);
    expect((await cli(["contacts", "rm", id, "--yes"])).code).toBe(0);
    expect((await cli(["contacts", "show", id])).code).toBe(3);
  });

  it("asks before deleting on a terminal, through the command's own input and stderr", async () => {
    const { cli } = await local();
    const id = JSON.parse((await cli(["contacts", "add", "--email", "grace@example.com", "--name", "Grace", "--json"])).stdout).contact.id as string;
    const kept = await cli(["contacts", "rm", id], { typed: "n\n" });
    expect(kept.code).toBe(0);
    expect(kept.stderr).toContain("Delete Grace <grace@example.com>?");
    expect(kept.stderr).toContain("Kept.");
    expect((await cli(["contacts", "show", id])).code).toBe(0);
    const deleted = await cli(["contacts", "rm", id], { typed: "y\n" });
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain(`Deleted ${id}.`);
    expect((await cli(["contacts", "show", id])).code).toBe(3);
  });

  it("walks every page with --all", async () => {
    const { cli } = await local();
    const csv = ["email,name", ...Array.from({ length: 45 }, (_, i) => `p${i}@x.example,P ${i}`)].join("\n");
    expect((await cli(["contacts", "import", "-"], { stdin: csv })).code).toBe(0);
    const one = await cli(["contacts", "list", "--limit", "20"]);
    expect(one.stdout.trim().split("\n")).toHaveLength(20);
    expect(one.stderr).toMatch(/page 1 of 3 \(45 contacts\)/);
    const all = await cli(["contacts", "list", "--all", "--limit", "20", "--json"]);
    const emails = JSON.parse(all.stdout).contacts.map((c: { email: string }) => c.email);
    expect(new Set(emails).size).toBe(45);
    expect(emails[0]).toBe("p44@x.example");
  });

  it("imports the lead search's CSV: leads with an email become contacts, others are reported by row", async () => {
    const { cli, dataDir } = await local();
    const file = join(dataDir, "..", `leads-${Date.now()}.csv`);
    writeFileSync(file, LEADS_CSV);
    const result = await cli(["contacts", "import", file, "--tag", "dentist", "--tag", "vaduz", "--json"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("row 4: invalid: email must be a valid email address");
    expect(result.stderr).toContain("row 5: duplicate: a contact with email PRAXIS@frick.example already exists");
    expect(result.stderr).toMatch(/imported 1 contact; 1 duplicate, 1 invalid, 1 skipped \(no email\)/);
    const report = JSON.parse(result.stdout);
    expect(report.rows.map((r: { where: string; status: string }) => `${r.where} ${r.status}`)).toEqual(["row 3 skipped", "row 2 created", "row 4 invalid", "row 5 duplicate"]);
    const listed = JSON.parse((await cli(["contacts", "list", "--json"])).stdout);
    expect(listed.contacts).toEqual([
      expect.objectContaining({ email: "praxis@frick.example", name: "Zahnarzt Frick", phone: "+423 232 00 00", description: "https://frick.example", tags: ["dentist", "health", "vaduz"], status: "active" }),
    ]);
  });

  it("imports the lead search's NDJSON stream from stdin, taking the complete line's leads", async () => {
    const { cli } = await local();
    const stream = [
      { type: "progress", data: { leads: [lead(1, null)] } },
      { type: "progress", data: { leads: [lead(1, "one@bakery.example"), lead(2, null)] } },
      { type: "complete", data: { center: { lat: 47, lng: 9 }, leads: [lead(1, "one@bakery.example"), lead(2, "two@bakery.example"), lead(3, null)], nextPageToken: null } },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    const result = await cli(["contacts", "import", "-", "--tag", "bakery"], { stdin: stream + "\n" });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/imported 2 contacts; 0 duplicate, 0 invalid, 1 skipped/);
    const listed = JSON.parse((await cli(["contacts", "list", "--json"])).stdout);
    expect(listed.contacts.map((c: { name: string; phone: string }) => `${c.name} ${c.phone}`).sort()).toEqual(["Bakery 1 +423 000 1", "Bakery 2 +423 000 2"]);
  });

  it("imports a stream without a complete line from its last progress line, and `--json` search output", async () => {
    const { cli } = await local();
    const partial = [{ type: "progress", data: { leads: [lead(1, "a@b.example")] } }, { type: "progress", data: { leads: [lead(1, "a@b.example"), lead(2, "c@d.example")] } }]
      .map((l) => JSON.stringify(l))
      .join("\n");
    expect((await cli(["contacts", "import", "-"], { stdin: partial })).stderr).toMatch(/imported 2 contacts/);
    const json = JSON.stringify({ center: { lat: 1, lng: 2 }, leads: [lead(5, "e@f.example"), lead(6, "a@b.example")], nextPageToken: null }, null, 2);
    const second = await cli(["contacts", "import", "-"], { stdin: json });
    expect(second.stderr).toMatch(/lead 2: duplicate/);
    expect(second.stderr).toMatch(/imported 1 contact; 1 duplicate/);
  });

  it("keeps going past invalid rows of a contact CSV, but --strict imports nothing", async () => {
    const { cli } = await local();
    const csv = "email,name,phone,description,tags,status\nok1@x.example,One,,,a; b,active\nbroken,Two,,,,\nok2@x.example,Three,,,,unsubscribed\n";
    const strict = await cli(["contacts", "import", "-", "--strict"], { stdin: csv });
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/row 3: invalid: email must be a valid email address \(--strict: nothing was imported\)/);
    expect(JSON.parse((await cli(["contacts", "list", "--json"])).stdout).total).toBe(0);
    const lenient = await cli(["contacts", "import", "-"], { stdin: csv });
    expect(lenient.code).toBe(2);
    expect(lenient.stderr).toMatch(/imported 2 contacts; 0 duplicate, 1 invalid/);
    const listed = JSON.parse((await cli(["contacts", "list", "--json"])).stdout).contacts;
    expect(listed.map((c: { email: string; tags: string[]; status: string }) => [c.email, c.tags, c.status])).toEqual([
      ["ok2@x.example", [], "unsubscribed"],
      ["ok1@x.example", ["a", "b"], "active"],
    ]);
  });

  it("exports every contact as CSV that imports back, and as NDJSON", async () => {
    const { cli } = await local();
    const csv = ["email,name,phone,tags", ...Array.from({ length: 130 }, (_, i) => `e${i}@x.example,"Name, ${i}",+41 ${i},t${i % 3}`)].join("\n");
    await cli(["contacts", "import", "-"], { stdin: csv });
    const exported = await cli(["contacts", "export", "--csv"]);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trim().split("\n");
    expect(lines[0]).toBe("email,name,phone,description,tags,status,id,created_at,updated_at");
    expect(lines).toHaveLength(131);
    expect(exported.stderr).toMatch(/exported 130 contacts/);
    const ndjson = (await cli(["contacts", "export", "--ndjson"])).stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(ndjson).toHaveLength(130);
    expect(ndjson.find((c) => c.email === "e7@x.example")).toMatchObject({ name: "Name, 7", phone: "+41 7", tags: ["t1"] });

    const other = await local();
    const back = await other.cli(["contacts", "import", "-"], { stdin: exported.stdout });
    expect(back.stderr).toMatch(/imported 130 contacts; 0 duplicate, 0 invalid/);
    const again = JSON.parse((await other.cli(["contacts", "list", "--search", "e7@", "--json"])).stdout).contacts[0];
    expect(again).toMatchObject({ name: "Name, 7", phone: "+41 7", tags: ["t1"] });
  });

  it("rotates the key: rows move to a new key, the old one is retired, contacts still read", async () => {
    const { cli, dataDir } = await local();
    await cli(["contacts", "import", "-"], { stdin: ["email,name", ...Array.from({ length: 30 }, (_, i) => `r${i}@x.example,R ${i}`)].join("\n") });
    const before = JSON.parse(readFileSync(join(dataDir, "secret.key"), "utf8"));
    const rotated = await cli(["admin", "keys", "rotate", "--batch-size", "7"]);
    expect(rotated.code).toBe(0);
    expect(rotated.stderr).toMatch(/30 rows to re-encrypt \(contacts: 30, sending domain DKIM keys: 0, email suppressions: 0, instance secrets: 0[,)]/);
    const after = JSON.parse(readFileSync(join(dataDir, "secret.key"), "utf8"));
    expect(after.keys).toHaveLength(1);
    expect(after.current).toBe(rotated.stdout.trim());
    expect(after.current).not.toBe(before.current);
    const listed = JSON.parse((await cli(["contacts", "list", "--search", "r29@", "--json"])).stdout);
    expect(listed.contacts[0].name).toBe("R 29");
    expect((await cli(["admin", "keys", "rotate", "--help"])).stdout).toMatch(/Examples:/);
  });
});
