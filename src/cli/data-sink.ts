import { closeSync, existsSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { CliError, EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";

/**
 * Where a command's data goes: stdout, or the file of `--out FILE`. The file is written
 * to a temporary file in the same folder and renamed over FILE only when the command
 * succeeds (`commit`), so a failed or interrupted command never leaves an empty or partial
 * file and never replaces an existing one (docs/cli.md, "--out"). Data is written as it
 * comes, so a long `--all --ndjson` is never held in memory.
 */
export class DataSink {
  private fd: number | undefined;
  private readonly temp: string | undefined;
  private readonly target: string | undefined;

  constructor(
    private readonly io: CliIO,
    file?: string,
  ) {
    if (file === undefined) return;
    this.target = resolve(file);
    const folder = dirname(this.target);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new CliError(`--out ${file}: the folder ${folder} does not exist`, EXIT.usage);
    if (existsSync(this.target) && statSync(this.target).isDirectory()) throw new CliError(`--out ${file}: is a folder, not a file`, EXIT.usage);
    this.temp = join(folder, `.${basename(this.target)}.${process.pid}-${randomBytes(4).toString("hex")}.part`);
    try {
      this.fd = openSync(this.temp, "wx", 0o644);
    } catch (err) {
      throw new CliError(`--out ${file}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, EXIT.usage);
    }
  }

  get toFile(): boolean {
    return this.target !== undefined;
  }

  write(text: string): void {
    if (this.fd !== undefined) writeSync(this.fd, text);
    else if (this.target === undefined) this.io.stdout.write(text);
  }

  /** The same I/O with stdout replaced by this sink (tables, rows), never a terminal when it is a file. */
  asIO(): CliIO {
    if (!this.toFile) return this.io;
    return { ...this.io, stdoutIsTTY: false, columns: undefined, stdout: { write: (s: string) => this.write(s) } };
  }

  /** The command succeeded: the file takes its place. */
  commit(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    renameSync(this.temp!, this.target!);
  }

  /** The command failed: the temporary file goes, whatever was at FILE stays. */
  discard(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    try {
      unlinkSync(this.temp!);
    } catch {
      // already gone: nothing to clean up
    }
  }
}

/** Run `work` with a sink for `--out FILE` (or stdout): committed when it succeeds, discarded when it throws. */
export async function withDataSink<T>(io: CliIO, file: string | undefined, work: (sink: DataSink) => Promise<T>): Promise<T> {
  const sink = new DataSink(io, file);
  try {
    const result = await work(sink);
    sink.commit();
    return result;
  } catch (err) {
    sink.discard();
    throw err;
  }
}
