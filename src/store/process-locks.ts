import type { Db } from "./db.js";

/** The holder of a one-row process lock (`delivery_lock`, `mailbox_watch_lock`). */
export interface ProcessLockRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: string;
}

export type ProcessLockTable = "delivery_lock" | "mailbox_watch_lock";

/**
 * A one-row lock with a heartbeat: one process of a data directory does a job (delivery,
 * the mailbox watch) and the others wait for it to stop or die. The table name comes from
 * the code (the union above), never from input.
 */
export class ProcessLockRows {
  constructor(private readonly db: Db, private readonly table: ProcessLockTable) {}

  holder(): ProcessLockRow | undefined {
    return this.db.prepare(`SELECT owner, pid, host, heartbeat_at FROM ${this.table} WHERE id = 1`).get() as ProcessLockRow | undefined;
  }

  take(row: ProcessLockRow): void {
    this.db
      .prepare(
        `INSERT INTO ${this.table} (id, owner, pid, host, heartbeat_at) VALUES (1, @owner, @pid, @host, @heartbeat_at)
         ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, heartbeat_at = excluded.heartbeat_at`,
      )
      .run(row);
  }

  /** False when another process took the lock meanwhile. */
  heartbeat(owner: string, now: string): boolean {
    return this.db.prepare(`UPDATE ${this.table} SET heartbeat_at = ? WHERE id = 1 AND owner = ?`).run(now, owner).changes === 1;
  }

  release(owner: string): void {
    this.db.prepare(`DELETE FROM ${this.table} WHERE id = 1 AND owner = ?`).run(owner);
  }
}
