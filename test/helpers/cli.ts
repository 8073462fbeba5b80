import { PassThrough } from "node:stream";
import { run } from "../../src/cli/main.js";
import type { RunDeps } from "../../src/cli/context.js";
import { dirname } from "node:path";
import { resolveCacheDir } from "../../src/services/instance.js";
import { tempDir } from "./data-dir.js";
import { testDkimKeys } from "./dkim-keys.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: NodeJS.ProcessEnv;
  /** Pretend stdout/stderr/stdin are a terminal. */
  tty?: boolean;
  /** The terminal's width when `tty` (default 120). */
  columns?: number;
  /** Piped input (stdin is then not a terminal). */
  stdin?: string;
  /** What the user types at the terminal (implies `tty`): answers to prompts. */
  typed?: string;
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
  stdin.end(options.typed ?? options.stdin ?? "");
  const env = options.env ?? cliEnv();
  const code = await run(
    argv,
    {
      stdin,
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdinIsTTY: options.typed !== undefined || Boolean(options.tty && options.stdin === undefined),
      stdoutIsTTY: Boolean(options.tty || options.typed !== undefined),
      stderrIsTTY: Boolean(options.tty || options.typed !== undefined),
      columns: options.tty || options.typed !== undefined ? (options.columns ?? 120) : undefined,
      signal: options.signal,
    },
    env,
    { dkimKeys: testDkimKeys, ...options.deps },
  );
  return { code, stdout, stderr };
}

/**
 * An isolated CLI environment that persists across several runCli calls (same config and data).
 * The cache alone is shared with the test process (the category vocabulary, derived from
 * the installed packages, where `testVocabulary` reads it): a spawned server would otherwise
 * build it again on its first search, which takes seconds.
 */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    HOME: tempDir(),
    XDG_CONFIG_HOME: tempDir(),
    XDG_DATA_HOME: tempDir(),
    XDG_CACHE_HOME: dirname(resolveCacheDir()),
    OUTREACH_RATE_LIMIT: "0",
    OUTREACH_ENRICH: "0",
    NO_COLOR: "1",
    ...extra,
  };
}
