import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startCheckpointer } from "../../src/store/checkpointer.js";
import { DATABASE_FILE_NAME } from "../../src/store/db.js";
import { createTestInstance } from "../helpers/instance.js";

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("WAL checkpoints from a background thread", () => {
  it("copies the WAL into the database while the server's own connection never checkpoints", async () => {
    const t = createTestInstance();
    const db = t.services.deps.db;
    const file = join(t.dataDir, DATABASE_FILE_NAME);
    const logs: string[] = [];
    const checkpointer = startCheckpointer(db, file, (line) => logs.push(line), 50);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const before = statSync(file).size;
    await t.services.contacts.addMany(t.teamId, Array.from({ length: 200 }, (_, i) => ({ email: `c${i}@example.com`, name: `C ${i}` })));
    // Only a checkpoint writes pages into the database file itself.
    await until(() => statSync(file).size > before);
    await checkpointer.stop();
    expect(logs).toEqual([]);
    // The connection keeps working, and without the thread SQLite is left to itself again only by close.
    expect(t.services.contacts.count(t.teamId)).toBe(200);
  });

  it("gives checkpoints back to SQLite when the thread dies", async () => {
    const t = createTestInstance();
    const db = t.services.deps.db;
    const logs: string[] = [];
    // A file that is not a database: the thread's first statement fails and it exits.
    startCheckpointer(db, join(t.dataDir, "missing", "nothing.db"), (line) => logs.push(line), 50);
    await until(() => logs.some((l) => l.includes("background checkpoints stopped")));
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
  });

  it("keeps the process alive while it stops, so that what follows an awaited stop still runs", () => {
    // A process with nothing else to do: before, it exited inside `await stop()` (the thread is unreferenced).
    const dir = mkdtempSync(join(tmpdir(), "outreach-checkpointer-"));
    try {
      const dist = resolve(import.meta.dirname, "../../dist/store");
      const script = `
        const { openDatabase } = await import(${JSON.stringify(join(dist, "db.js"))});
        const { startCheckpointer } = await import(${JSON.stringify(join(dist, "checkpointer.js"))});
        const file = ${JSON.stringify(join(dir, "t.db"))};
        const db = openDatabase(file);
        await startCheckpointer(db, file, () => {}, 50).stop();
        console.log("after the stop");
        db.close();`;
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(out).toContain("after the stop");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
