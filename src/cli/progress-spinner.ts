import ora, { type Ora } from "ora";
import type { CliIO } from "./io.js";

/**
 * A spinner on stderr when stderr is a terminal, nothing otherwise (piped output and
 * CI logs stay clean). Ora wants a TTY stream: this adapter gives it one over the
 * injected `io.stderr`, so tests can run commands "on a terminal" in-process.
 */
export interface ProgressSpinner {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
  stop(): void;
  /** A line of its own on stderr above the spinner (which is redrawn below it), or just the line when nothing is drawn. */
  above(text: string): void;
}

function terminalStream(io: CliIO) {
  const write = (s: string) => {
    io.stderr.write(s);
    return true;
  };
  return {
    isTTY: true,
    // A pseudo-terminal nobody sized (`script`, some CI runners) says 0 columns: ora would then clear lines without end.
    columns: io.columns && io.columns > 0 ? io.columns : 80,
    rows: 24,
    write,
    cursorTo: (x: number) => write(`\u001b[${x + 1}G`),
    moveCursor: (dx: number, dy: number) => write((dy < 0 ? `\u001b[${-dy}A` : dy > 0 ? `\u001b[${dy}B` : "") + (dx > 0 ? `\u001b[${dx}C` : dx < 0 ? `\u001b[${-dx}D` : "")),
    clearLine: () => write("\u001b[2K"),
    on: () => undefined,
    once: () => undefined,
    off: () => undefined,
    removeListener: () => undefined,
  };
}

/** The one spinner of the CLI; `show: false` (or stderr not a terminal) gives one that draws nothing. */
export function progressSpinner(io: CliIO, text: string, { show = io.stderrIsTTY }: { show?: boolean } = {}): ProgressSpinner {
  if (!show || !io.stderrIsTTY) return { update() {}, succeed() {}, fail() {}, stop() {}, above: (line) => void io.stderr.write(line + "\n") };
  const spinner: Ora = ora({
    text,
    stream: terminalStream(io) as unknown as NodeJS.WritableStream,
    isEnabled: true,
    discardStdin: false,
    hideCursor: false,
  }).start();
  return {
    update(next) {
      spinner.text = next;
      spinner.render(); // CPU-bound work starves ora's timer: draw on every update
    },
    succeed: (done) => void spinner.succeed(done),
    fail: (done) => void spinner.fail(done),
    stop: () => void spinner.stop(),
    above(line) {
      spinner.clear();
      io.stderr.write(line + "\n");
      spinner.render();
    },
  };
}
