import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { TurnWrites } from "../../src/services/sending/delivery-writes.js";
import type { Db } from "../../src/store/db.js";
import { tempDir } from "../helpers/data-dir.js";

/** A WAL database on disk with one table, and a count of the transactions begun on it. */
function counted() {
  const file = join(tempDir(), "writes.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE marks (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0))");
  const stats = { transactions: 0 };
  const wrapped = new Proxy(db, {
    get(target, key) {
      if (key === "transaction") {
        return (fn: (...args: unknown[]) => unknown) => {
          stats.transactions++;
          return target.transaction(fn);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Db;
  // Another connection: what it sees is what is committed.
  const reader = new Database(file, { readonly: true });
  const committed = () => reader.prepare("SELECT id FROM marks ORDER BY id").pluck().all();
  return { db, wrapped, stats, committed, close: () => (reader.close(), db.close()) };
}

describe("the delivery's writes of one turn share one transaction", () => {
  test("writes asked for in one turn are one transaction, each answered with its result once committed; a later turn is another", async () => {
    const t = counted();
    const writes = new TurnWrites(t.wrapped);
    const insert = t.db.prepare("INSERT INTO marks (id, n) VALUES (?, 1)");
    const answers = ["a", "b", "c", "d"].map((id) => writes.run(() => insert.run(id).changes));
    // Nothing is written before the turn ends.
    expect(t.committed()).toEqual([]);
    expect(await Promise.all(answers)).toEqual([1, 1, 1, 1]);
    expect(t.stats.transactions).toBe(1);
    expect(t.committed()).toEqual(["a", "b", "c", "d"]);

    expect(await writes.run(() => insert.run("e").changes)).toBe(1);
    expect(t.stats.transactions).toBe(2);
    expect(t.committed()).toEqual(["a", "b", "c", "d", "e"]);
    t.close();
  });

  test("a write that fails rejects alone: the others of its turn are committed", async () => {
    const t = counted();
    const writes = new TurnWrites(t.wrapped);
    t.db.prepare("INSERT INTO marks (id, n) VALUES ('kept', 0)").run();
    const insert = t.db.prepare("INSERT INTO marks (id, n) VALUES (?, 1)");
    const first = writes.run(() => insert.run("x").changes);
    // Violates the CHECK: the turn's transaction fails, then each write runs alone.
    const failing = writes.run(() => t.db.prepare("UPDATE marks SET n = n - 1 WHERE id = 'kept'").run().changes);
    const last = writes.run(() => insert.run("y").changes);
    await expect(failing).rejects.toThrow(/CHECK constraint failed/);
    expect(await first).toBe(1);
    expect(await last).toBe(1);
    expect(t.committed()).toEqual(["kept", "x", "y"]);
    expect(t.db.prepare("SELECT n FROM marks WHERE id = 'kept'").pluck().get()).toBe(0);
    t.close();
  });
});
