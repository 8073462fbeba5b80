import { describe, expect, it } from "vitest";
import { fitColumnWidths, relativeTime } from "../../src/cli/output.js";
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
    // Top border, header, header rule, 20 rows, bottom border (it was ~130 lines).
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(lines.filter((l) => l.includes("Ristorante"))).toHaveLength(20);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(table.stdout).toContain("…");
    const piped = await runCli(argv, { env, deps: { clock: instance.clock } });
    expect(piped.stdout).toContain("https://www.ristorante-pizzeria-bella-vista-0.li/de/speisekarte/");
  });

  it("widths: the widest column gives way first, none below its floor; times read as a person says them", () => {
    expect(fitColumnWidths([10, 40, 5], 60)).toEqual([10, 40, 5]);
    expect(fitColumnWidths([10, 40, 5], 30)).toEqual([10, 15, 5]);
    expect(fitColumnWidths([30, 30], 10)).toEqual([6, 6]);
    const now = new Date("2026-11-22T10:00:00.000Z");
    expect(relativeTime("2026-11-22T07:00:00.000Z", now)).toBe("3 hours ago");
    expect(relativeTime("2026-11-27T10:00:00.000Z", now)).toBe("in 5 days");
    expect(relativeTime("2026-11-22T09:59:30.000Z", now)).toBe("just now");
    expect(relativeTime("2025-11-01T10:00:00.000Z", now)).toBe("1 year ago");
  });
});
