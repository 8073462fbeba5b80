import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { columnKind, fitColumnWidths, relativeTime } from "../../src/cli/output.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ, type TestPlace } from "../helpers/places.js";

/** 20 businesses with long names and URLs: the cells that made the table wrap. */
const places: TestPlace[] = Array.from({ length: 20 }, (_, i) => ({
  placeId: `osm:node:${9000 + i}`,
  name: `Ristorante Pizzeria Bella Vista e Trattoria del Centro Storico ${i}`,
  ...offsetKm(VADUZ.lat, VADUZ.lng, (i % 5) * 0.2, Math.floor(i / 5) * 0.2),
  categories: ["restaurant"],
  phone: `+423 230 ${String(10 + i).padStart(2, "0")} 00`,
  email: `reservations.and.events@ristorante-pizzeria-bella-vista-${i}.li`,
  website: `https://www.ristorante-pizzeria-bella-vista-${i}.li/de/speisekarte/`,
}));

describe("the terminal table fits the width", () => {
  it("20 leads at 80 columns: one line per row, no rules between rows, long cells cut with …; piped rows keep every value", async () => {
    const dataDir = tempDir();
    const instance = createTestInstance({ dataDir });
    insertPlaces(instance.services.deps.db, places);
    insertLocality(instance.services.deps.db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 100 });
    const env = cliEnv({ OUTREACH_DATA_DIR: dataDir });
    const argv = ["leads", "search", "--location", "Vaduz", "--keywords", "ristorante"];
    const table = await runCli(argv, { env, deps: { clock: instance.clock }, tty: true, columns: 80 });
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    // A header and 20 rows, no borders (it was ~130 lines).
    expect(lines).toHaveLength(21);
    expect(table.stdout).not.toMatch(/[│┌┐└┘─]/);
    // The data cannot stay whole at 80 columns: names keep 16 characters meanwhile.
    expect(lines.filter((l) => l.startsWith("Ristorante Pizz… "))).toHaveLength(20);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(table.stdout).toContain("…");
    const piped = await runCli(argv, { env, deps: { clock: instance.clock } });
    expect(piped.stdout).toContain("https://www.ristorante-pizzeria-bella-vista-0.li/de/speisekarte/");
  });

  it("widths: the widest column gives way first, none below its floor; times read as a person says them", () => {
    expect(fitColumnWidths([10, 40, 5], 60)).toEqual([10, 40, 5]);
    expect(fitColumnWidths([10, 40, 5], 30)).toEqual([10, 15, 5]);
    expect(fitColumnWidths([30, 30], 10)).toEqual([6, 6]);
    // An id never gives way; free text before data; data only when the text is at its floor.
    expect(fitColumnWidths([19, 30, 40], 60, ["id", "data", "text"])).toEqual([19, 30, 11]);
    // When the data cannot stay whole anyway, names keep 16 characters while the data gives way.
    expect(fitColumnWidths([19, 30, 40], 40, ["id", "data", "text"])).toEqual([19, 6, 15]);
    expect(fitColumnWidths([19, 30, 40], 50, ["id", "data", "text"])).toEqual([19, 15, 16]);
    expect(fitColumnWidths([19, 40], 10, ["id", "text"])).toEqual([19, 6]);
    // A header stays whole where it can.
    expect(fitColumnWidths([20, 30], 30, ["text", "text"], [12, 2])).toEqual([15, 15]);
    expect(fitColumnWidths([20, 30], 20, ["text", "text"], [12, 2])).toEqual([12, 8]);
    expect(columnKind(["ct_ThCl0fFqA1b2C3d4", "", "osm:node:123"])).toBe("id");
    expect(columnKind(["ada@example.com", "https://example.com/a", "+423 230 10 00", "frick.li"])).toBe("data");
    expect(columnKind(["ada@example.com", "Ada Lovelace"])).toBe("text");
    expect(relativeTime("2026-11-21T09:00:00.000Z", new Date("2026-11-22T10:00:00.000Z"))).toBe("yesterday");
    expect(relativeTime("2026-11-22T12:00:00.000Z", new Date("2026-11-22T10:00:00.000Z"))).toBe("in 2 hours");
    const now = new Date("2026-11-22T10:00:00.000Z");
    expect(relativeTime("2026-11-22T07:00:00.000Z", now)).toBe("3 hours ago");
    expect(relativeTime("2026-11-27T10:00:00.000Z", now)).toBe("in 5 days");
    expect(relativeTime("2026-11-22T09:59:30.000Z", now)).toBe("just now");
    expect(relativeTime("2025-11-01T10:00:00.000Z", now)).toBe("1 year ago");
  });
});

/** Three contacts whose names are far longer than their ids, emails and tags. */
async function contactsTable() {
  const clock = new ManualClock("2026-11-22T10:00:00.000Z");
  const dataDir = tempDir();
  const env = cliEnv({ OUTREACH_DATA_DIR: dataDir });
  const cli = (argv: string[], options: { tty?: boolean; columns?: number } = {}) => runCli(argv, { env, deps: { clock }, ...options });
  expect((await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"])).code).toBe(0);
  for (let i = 1; i <= 3; i++) {
    const name = `Ristorante Pizzeria Bella Vista e Trattoria del Centro Storico ${i}`;
    const added = await cli(["contacts", "add", "--email", `events${i}@bella-vista.li`, "--name", name, "--tag", "lead", "--tag", "vip"]);
    expect(added.code, added.stderr).toBe(0);
  }
  const piped = await cli(["contacts", "list"]);
  // Piped rows: id, email, … (whole, whatever the terminal).
  const contacts = piped.stdout.trim().split("\n").map((line) => line.split("\t") as [string, string]);
  expect(contacts).toHaveLength(3);
  return { cli, clock, contacts };
}

describe("the terminal table keeps what people copy (GitHub CLI style)", () => {
  for (const columns of [80, 120]) {
    it(`at ${columns} columns: ids and emails whole, the widest free text (the name) cut first, no borders`, async () => {
      const { cli, contacts } = await contactsTable();
      const table = await cli(["contacts", "list"], { tty: true, columns });
      expect(table.code, table.stderr).toBe(0);
      const lines = table.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(/^ID +EMAIL +NAME +PHONE +STATUS +TAGS$/);
      expect(table.stdout).not.toMatch(/[│┌┐└┘─|+]/);
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(columns);
      for (const [id, email] of contacts) {
        expect(email).toMatch(/^events\d@bella-vista\.li$/);
        expect(lines.filter((line) => line.startsWith(`${id}  ${email}  `))).toHaveLength(1);
        const row = lines.find((line) => line.startsWith(id));
        // Short free text stays whole; the long name gave way.
        expect(row).toMatch(/ active +lead, vip$/);
        expect(row).toMatch(/ Ristoran[^…]*… /);
        expect(row).not.toContain("Centro Storico");
      }
    });
  }

  it("times are relative on a terminal and exact ISO when piped", async () => {
    const { cli, clock } = await contactsTable();
    const created = await cli(["keys", "create", "--name", "zapier", "--expires-at", "2026-11-24T10:03:00.000Z"]);
    expect(created.code, created.stderr).toBe(0);
    clock.advance(3 * 60_000);
    const table = await cli(["keys", "list"], { tty: true, columns: 120 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/ never +in 2 days$/m);
    expect(table.stdout).not.toMatch(/2026-11-2\dT/);
    const tokens = await cli(["auth", "tokens", "list"], { tty: true, columns: 80 });
    expect(tokens.stdout).toMatch(/3 minutes ago/);
    const piped = await cli(["keys", "list"]);
    expect(piped.stdout).toMatch(/\tnever\t2026-11-24T10:03:00\.000Z$/m);
  });
});
