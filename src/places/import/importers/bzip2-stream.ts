import { spawn, spawnSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import unbzip2 from "unbzip2-stream";

/**
 * A `.bz2` file decompressed as a stream, so an `.osm.bz2` of any size is parsed in
 * bounded memory (holding it decompressed would hit V8's 512 MiB string limit long before
 * a country extract's tens of gigabytes).
 *
 * Which decompressor: `lbzip2` (multi-threaded) or `bzip2` when one is on the PATH,
 * otherwise unbzip2-stream in JavaScript. Measured on the Liechtenstein extract as XML
 * (63 MB, 5.5 MB compressed): `bzip2 -dc` 2.6 s, unbzip2-stream 8.6 s (and seek-bzip,
 * which needs the whole file in memory, 3.9 s).
 */

export type Bzip2Decoder = "system" | "javascript";

/** The file could not be decompressed (not bzip2, truncated, corrupt, unreadable). */
export class Bzip2Error extends Error {
  override name = "Bzip2Error";
}

const asBzip2Error = (err: unknown) => (err instanceof Error && err.name === "AbortError" ? err : new Bzip2Error(err instanceof Error ? err.message : String(err)));

let systemTool: string | null | undefined;

/** The first of lbzip2, bzip2 that runs here (looked up once). */
function findSystemTool(): string | null {
  if (systemTool === undefined) {
    systemTool = null;
    for (const tool of ["lbzip2", "bzip2"]) {
      const probe = spawnSync(tool, ["--help"], { stdio: "ignore", timeout: 5000 });
      if (!probe.error) {
        systemTool = tool;
        break;
      }
    }
  }
  return systemTool;
}

/**
 * The decompressed bytes of `path`. Errors (not bzip2, truncated, unreadable) come out of
 * the stream as an Error whose message says what the decompressor said.
 */
export function bzip2Stream(path: string, options: { decoder?: Bzip2Decoder; signal?: AbortSignal } = {}): Readable {
  const tool = options.decoder === "javascript" ? null : findSystemTool();
  if (tool) return systemStream(tool, path, options.signal);
  const input = createReadStream(path, { signal: options.signal });
  // unbzip2-stream is a classic (through) stream: wrap it into a modern Readable.
  const decoded = input.pipe(unbzip2());
  const output = new Readable({ read() {} });
  // Before wrap(), which forwards the stream's errors as they are: the first destroy wins.
  decoded.on("error", (err: unknown) => output.destroy(asBzip2Error(err)));
  input.on("error", (err) => output.destroy(asBzip2Error(err)));
  output.wrap(decoded);
  output.on("close", () => input.destroy());
  return output;
}

function systemStream(tool: string, path: string, signal: AbortSignal | undefined): Readable {
  const child = spawn(tool, ["-dc", "--", path], { stdio: ["ignore", "pipe", "pipe"], signal });
  const output = child.stdout;
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    if (stderr.length < 2000) stderr += text;
  });
  // The output ends before the exit status is known: hold the end back until it is, so a
  // corrupt file is an error, never a silently shorter document.
  const checked = new Readable({ read: () => output.resume() });
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let ended = false;
  const finish = () => {
    if (!exited || !ended) return;
    if (exited.code === 0) checked.push(null);
    else checked.destroy(new Bzip2Error(stderr.trim().split("\n")[0] || `${tool} exited with ${exited.code ?? exited.signal}`));
  };
  output.on("data", (chunk: Buffer) => {
    if (!checked.push(chunk)) output.pause();
  });
  output.on("end", () => {
    ended = true;
    finish();
  });
  child.on("error", (err) => checked.destroy(asBzip2Error(err)));
  child.on("exit", (code, exitSignal) => {
    exited = { code, signal: exitSignal };
    finish();
  });
  checked.on("close", () => {
    if (!exited) child.kill();
  });
  return checked;
}
