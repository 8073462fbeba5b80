import type { Clock } from "../core/clock.js";
import type { CliIO } from "./io.js";
import { progressSpinner } from "./progress-spinner.js";

/**
 * Progress of a long run over rows (`contacts import`, `contacts export`): how many so far,
 * of how many when that is known, at what rate and how long until the end. Drawn on stderr
 * with the CLI's spinner when stderr is a terminal; nothing at all otherwise, so piped runs
 * and logs stay as they were.
 */
export interface RateProgress {
  /** `done` rows so far (a running count, not an increment); redrawn at most every REDRAW_MS. */
  update(done: number): void;
  /** The total, once known (a list's first page). */
  setTotal(total: number): void;
  /** Print a line above the progress line (per-row reports) without tearing it. */
  log(line: string): void;
  stop(): void;
}

const REDRAW_MS = 100;

const count = (n: number) => Math.round(n).toLocaleString("en");

/** A duration as people say it: "45 s", "3 min 20 s", "1 h 5 min". */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** "12,000 of 50,000 contacts · 3,400/s · about 11 s left" (the parts known so far). */
export function rateLine(noun: string, done: number, total: number | undefined, seconds: number): string {
  const rate = seconds > 0 ? done / seconds : 0;
  const parts = [total === undefined ? `${count(done)} ${noun}` : `${count(done)} of ${count(total)} ${noun}`];
  if (rate > 0) parts.push(`${count(rate)}/s`);
  if (rate > 0 && total !== undefined && total > done) parts.push(`about ${durationText((total - done) / rate)} left`);
  return parts.join(" · ");
}

export function rateProgress(io: CliIO, clock: Clock, noun: string, total?: number): RateProgress {
  const started = clock.now().getTime();
  let known = total;
  let drawn = -Infinity;
  let last = 0;
  const line = () => rateLine(noun, last, known, (clock.now().getTime() - started) / 1000);
  const spinner = progressSpinner(io, line());
  return {
    update(done) {
      last = done;
      const now = clock.now().getTime();
      if (now - drawn < REDRAW_MS) return;
      drawn = now;
      spinner.update(line());
    },
    setTotal(n) {
      known = n;
    },
    log(text) {
      spinner.above(text);
    },
    stop: () => spinner.stop(),
  };
}
