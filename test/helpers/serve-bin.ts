import { spawn, type ChildProcess } from "node:child_process";
import { afterEach } from "vitest";
import { unusedPort } from "./ports.js";

import { BIN } from "./built-bin.js";

export { BIN };

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI to completion. */
export function runBin(args: string[], env: NodeJS.ProcessEnv): Promise<BinResult> {
  return runToEnd(process.execPath, [BIN, ...args], env);
}

/** Run a program to completion with only PATH and `env`, collecting its output. */
export function runToEnd(program: string, args: string[], env: NodeJS.ProcessEnv): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves with the first match of `pattern` in the child's stdout. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; got: ${seen}`)), 20_000);
    child.stdout!.on("data", (d) => {
      seen += d;
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.on("close", () => reject(new Error(`exited early: ${seen}`)));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything written to stderr so far (the request log, warnings). */
  stderr(): string;
  /** Resolves with the exit code and the time the process ended (performance.now()). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Whether the process is still running. */
  alive(): boolean;
}

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** `outreach serve` of the built binary on a free loopback port, killed after the test if still running. */
export async function spawnServe(dataDir: string, env: NodeJS.ProcessEnv, extraArgs: string[] = []): Promise<ServeProcess> {
  const port = await unusedPort();
  const child = spawn(process.execPath, [BIN, "serve", "--data-dir", dataDir, "--port", String(port), ...extraArgs], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const url = await waitForLine(child, /http:\/\/127\.0\.0\.1:\d+/);
  return { child, url, port, stderr: () => stderr, exited, alive: () => child.exitCode === null && child.signalCode === null };
}
