import type { Db } from "../connection.js";

/**
 * Widen a CHECK constraint in place: SQLite cannot ALTER a constraint, and rebuilding
 * `contacts` would need `foreign_keys = OFF`, which cannot change inside the migration's
 * transaction (with it on, dropping the old table would cascade-delete every tag, gram and
 * execution). Allowing more values changes nothing on disk, which is the case SQLite's
 * documentation gives this procedure for ("Making Other Kinds Of Table Schema Changes":
 * edit the CREATE statement in sqlite_schema, bump schema_version, check integrity).
 */
export function widenCheck(db: Db, table: string, from: string, to: string): void {
  const row = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) as { sql: string } | undefined;
  if (!row || row.sql.split(from).length !== 2) throw new Error(`migration: the CHECK of ${table} is not the one expected (${from})`);
  const version = db.pragma("schema_version", { simple: true }) as number;
  db.unsafeMode(true);
  try {
    db.pragma("writable_schema = ON");
    db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?").run(row.sql.replace(from, to), table);
    db.pragma(`schema_version = ${version + 1}`);
    db.pragma("writable_schema = OFF");
  } finally {
    db.unsafeMode(false);
  }
  const check = db.pragma("quick_check", { simple: true });
  if (check !== "ok") throw new Error(`migration: quick_check after widening ${table}: ${String(check)}`);
}
