import type { Db } from "../../store/db.js";

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * The delivery loop's writes of one turn of the event loop in one transaction: with a few
 * messages on their way at once, their `sending` marks and their answers arrive close
 * together, and a commit per write was the loop's largest item (a profile on a loaded
 * machine: the statements' `run`, commits and the WAL's checkpoints, above the SMTP client).
 * A write's promise settles once its transaction is committed: a caller that must not go on
 * before its row is durable (the final `.` of DATA after `sending`) awaits it. A failing
 * write does not take the others of its turn with it: after a failed transaction each is
 * run again alone, and only the failing one's promise rejects.
 */
export class TurnWrites {
  private pending: Pending[] = [];

  constructor(private readonly db: Db) {}

  /** `write` in the next turn's transaction; its result once committed. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    let results: unknown[];
    try {
      results = this.db.transaction(() => batch.map((p) => p.write())).immediate();
    } catch {
      for (const p of batch) {
        try {
          p.resolve(this.db.transaction(p.write).immediate());
        } catch (err) {
          p.reject(err);
        }
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  }
}
