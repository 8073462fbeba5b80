import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Db } from "./connection.js";
import { MIGRATIONS } from "./migrations/index.js";
import type { Migration } from "./migrations/migration.js";
import { preparePrivateFile } from "./private-files.js";

export type { Db } from "./connection.js";

export class StoreError extends Error {
  override name = "StoreError";
}

export const DATABASE_FILE_NAME = "outreach.db";

/**
 * Statements prepared on first use and kept, for the queries every request runs
 * (authentication, workspace, plan, quota): preparing costs tens of microseconds, and a
 * search request ran a dozen. Use them with get/run/all only (no iterate, no
 * raw/pluck/expand toggles), so a shared statement never carries a mode or an open cursor.
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Db) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }
}

/**
 * Open (creating if needed) the SQLite database and bring its schema up to date.
 * Pragmas in PocketBase's order: busy_timeout first so that even the pragmas below
 * wait for a lock instead of failing. A database written by a newer program is
 * refused before anything (not even the journal mode) is changed.
 */
export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  if (file !== ":memory:") {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    preparePrivateFile(file);
  }
  const db = new Database(file);
  try {
    db.pragma("busy_timeout = 5000");
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > migrations.length) {
      throw new StoreError(
        `the database ${file} has schema version ${version}, newer than this program understands (${migrations.length}); ` +
          "upgrade outreach to use it (it was left untouched)",
      );
    }
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // 64 MiB page cache (allocated as used) instead of 2 MiB: the contacts' trigram index
    // is a few hundred MB at 100k contacts and thrashes a small cache on inserts and searches.
    db.pragma("cache_size = -65536");
    migrate(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Apply pending migrations. Each runs in its own immediate transaction together with
 * its `user_version` bump, so a failing migration rolls back schema and version alike.
 * Versions are positions in the append-only list: never reorder or edit a shipped one.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number {
  let version = db.pragma("user_version", { simple: true }) as number;
  for (let i = version; i < migrations.length; i++) {
    const migration = migrations[i]!;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${i + 1}`);
    }).immediate();
    version = i + 1;
  }
  return version;
}

export function schemaVersion(db: Db): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/** A consistent copy of a live database through SQLite's online backup API. */
export async function backupDatabase(db: Db, destination: string): Promise<void> {
  mkdirSync(dirname(destination), { recursive: true, mode: 0o700 });
  // A backup holds the same personal data: private from its first byte.
  preparePrivateFile(destination);
  await db.backup(destination);
}
