import type Database from "better-sqlite3";

/**
 * An open SQLite connection, as every repository and migration takes it. Its own file so
 * that what `db.ts` imports (the migrations, the term index's SQL function) can name it
 * without importing `db.ts` back.
 */
export type Db = Database.Database;
