import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./delivery-crash-child.mjs", import.meta.url));

/** Run the self-killing delivery process (delivery-crash-child.mjs) at `hook`; resolves with how it ended. */
export function crashAt(dataDir: string, hook: string, env: NodeJS.ProcessEnv): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dataDir, hook], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (_code, signal) => resolve({ signal, stderr }));
  });
}
