import { PassThrough } from "node:stream";
import { run } from "../../src/cli/main.js";
import type { RunDeps } from "../../src/cli/context.js";
import { tempDir } from "./data-dir.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: NodeJS.ProcessEnv;
  /** Pretend stdout/stderr/stdin are a terminal. */
  tty?: boolean;
  stdin?: string;
  deps?: RunDeps;
  signal?: AbortSignal;
}

/**
 * Run the CLI in-process with captured output. The environment is isolated: config and
 * data go to temp directories unless the test passes its own.
 */
export async function runCli(argv: string[], options: CliRunOptions = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? "");
  const env = options.env ?? cliEnv();
  const code = await run(
    argv,
    {
      stdin,
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdinIsTTY: Boolean(options.tty && options.stdin === undefined),
      stdoutIsTTY: Boolean(options.tty),
      stderrIsTTY: Boolean(options.tty),
      columns: options.tty ? 120 : undefined,
      signal: options.signal,
    },
    env,
    options.deps,
  );
  return { code, stdout, stderr };
}

/** An isolated CLI environment that persists across several runCli calls (same config and data). */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    HOME: tempDir(),
    XDG_CONFIG_HOME: tempDir(),
    XDG_DATA_HOME: tempDir(),
    OUTREACH_RATE_LIMIT: "0",
    OUTREACH_ENRICH: "0",
    NO_COLOR: "1",
    ...extra,
  };
}
