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

export function processIO(signal?: AbortSignal): CliIO {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns,
    signal,
  };
}

/**
 * Where a prompt (@inquirer/prompts) reads and writes: the injected stdin, and stderr
 * (never stdout, which is for data), so prompts run in-process under test like the rest.
 */
export function promptContext(io: CliIO): { input: Readable; output: NodeJS.WritableStream; signal?: AbortSignal } {
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stderr.write(chunk.toString());
      done();
    },
  });
  return { input: io.stdin, output, signal: io.signal };
}

/** Read all of stdin as text (for `--with-token`, `contacts import -`). */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
