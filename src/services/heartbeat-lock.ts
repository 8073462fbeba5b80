import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Clock } from "../core/clock.js";
import type { Db } from "../store/db.js";
import { ProcessLockRows } from "../store/process-locks.js";

/** A lock whose holder has not written a heartbeat for this long is taken over. */
export const LOCK_STALE_MS = 60_000;
const HEARTBEAT_MS = 5_000;

/** Whether a process runs on this host (`kill -0`). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is someone else's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The mailbox watcher's lock (`mailbox_watch_lock`), by the delivery loop's rule: one
 * holder per data directory; a holder is gone when its heartbeat is a minute old or its
 * process no longer runs on this host, and then the next `serve` takes over.
 */
export class MailboxWatchLock {
  readonly owner = `mbx_${randomBytes(8).toString("hex")}`;
  private holding = false;
  private lastBeat = 0;

  private readonly rows: ProcessLockRows;

  constructor(private readonly deps: { db: Db; clock: Clock; pid?: number; alive?: (pid: number) => boolean }) {
    this.rows = new ProcessLockRows(deps.db, "mailbox_watch_lock");
  }

  get held(): boolean {
    return this.holding;
  }

  acquire(): { ok: true } | { ok: false; holder: string } {
    const host = hostname();
    const alive = this.deps.alive ?? processAlive;
    return this.deps.db
      .transaction(() => {
        const now = this.deps.clock.now();
        const holder = this.rows.holder();
        if (holder && holder.owner !== this.owner) {
          const fresh = now.getTime() - new Date(holder.heartbeat_at).getTime() < LOCK_STALE_MS;
          const running = holder.host !== host || alive(holder.pid);
          if (fresh && running) return { ok: false as const, holder: `process ${holder.pid} on ${holder.host}` };
        }
        this.rows.take({ owner: this.owner, pid: this.deps.pid ?? process.pid, host, heartbeat_at: now.toISOString() });
        this.holding = true;
        this.lastBeat = now.getTime();
        return { ok: true as const };
      })
      .immediate();
  }

  /** Renew the heartbeat (at most every 5 s); false when another process took the lock over. */
  beat(): boolean {
    if (!this.holding) return false;
    const now = this.deps.clock.now();
    if (now.getTime() - this.lastBeat < HEARTBEAT_MS) return true;
    this.lastBeat = now.getTime();
    const still = this.deps.db.transaction(() => this.rows.heartbeat(this.owner, now.toISOString())).immediate();
    if (!still) this.holding = false;
    return still;
  }

  release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.deps.db.transaction(() => this.rows.release(this.owner)).immediate();
  }
}
