import { Writable, type Readable } from "node:stream";

/** Where a command reads and writes. Injected, so tests run commands in-process as TTY or piped. */
export interface CliIO {
  stdin: Readable;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables; undefined when not a terminal. */
  columns?: number;
  /** Interrupts (Ctrl-C) abort this signal; commands pass it to long requests. */
  signal?: AbortSignal;
}

/**
 * The reason `signal` aborts with when the reader of stdout went away (`outreach … | head -1`):
 * the command stops quietly and the exit code is 0 (docs/cli.md, "Pipes").
 */
export class StdoutClosed extends Error {
  override name = "StdoutClosed";
  constructor() {
    super("stdout was closed by its reader");
  }
}

/** Whether this run ended because stdout was closed (then the command exits 0 without a word). */
export function stdoutWasClosed(io: CliIO): boolean {
  return io.signal?.aborted === true && io.signal.reason instanceof StdoutClosed;
}

/**
 * The process's own streams. A closed stdout (EPIPE) aborts `controller` with `StdoutClosed`,
 * so a long command stops its requests, and later writes are dropped instead of raising
 * an error nobody handles (which printed a stack trace). Errors of stderr are ignored: there
 * is nowhere left to report them.
 */
export function processIO(controller?: AbortController): CliIO {
  let stdoutOpen = true;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    stdoutOpen = false;
    if (err.code === "EPIPE" || err.code === "ERR_STREAM_DESTROYED") controller?.abort(new StdoutClosed());
    else controller?.abort(err);
  });
  process.stderr.on("error", () => {});
  return {
    stdin: process.stdin,
    stdout: { write: (chunk: string) => stdoutOpen && process.stdout.write(chunk) },
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns ?? process.stderr.columns,
    signal: controller?.signal,
  };
}

/**
 * Where ONE prompt (@inquirer/prompts) reads and writes: the injected stdin, and stderr
 * (never stdout, which is for data), so prompts run in-process under test like the rest.
 * Make a new one for every prompt: a prompt ends its output stream when it is answered,
 * and a second prompt on an ended stream draws nothing (the questions after the first
 * were typed blind). The stream says it is a terminal of the terminal's width, so the
 * prompt wraps and redraws its lines as the terminal shows them.
 */
export function promptContext(io: CliIO): { input: Readable; output: NodeJS.WritableStream; signal?: AbortSignal } {
  const output = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        io.stderr.write(chunk.toString());
        done();
      },
    }),
    { isTTY: io.stderrIsTTY, columns: io.columns ?? 80 },
  );
  return { input: io.stdin, output, signal: io.signal };
}

/** Read all of stdin as bytes (`contacts import -`, which detects the encoding). */
export async function readAllBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Read all of stdin as UTF-8 text (for `--with-token`, a body file from stdin). */
export async function readAll(stream: Readable): Promise<string> {
  return (await readAllBytes(stream)).toString("utf8");
}
