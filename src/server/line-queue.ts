import type { StreamLine } from "../core/contract/index.js";

/** Lines produced by callbacks, consumed by the NDJSON writer as an async iterable. */
export class LineQueue implements AsyncIterable<StreamLine> {
  private readonly items: StreamLine[] = [];
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;
  push(line: StreamLine): void {
    this.items.push(line);
    this.wake?.();
  }

  fail(err: unknown): void {
    this.failed = true;
    this.error = err;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamLine> {
    for (;;) {
      const next = this.items.shift();
      if (next) {
        yield next;
        if (next.type !== "progress") return;
        continue;
      }
      if (this.failed) throw this.error;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
