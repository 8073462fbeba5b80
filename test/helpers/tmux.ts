import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

/**
 * A real pseudo-terminal: a command run in a detached tmux session of a given size, typed
 * into with send-keys and read back with capture-pane (what a person sees on the screen).
 * Each terminal has its own tmux server (its own socket), so tests never share one.
 */
export class TmuxTerminal {
  private readonly socket = `outreach-test-${process.pid}-${randomBytes(4).toString("hex")}`;

  constructor(command: string[], { columns = 80, rows = 40, env = {} as NodeJS.ProcessEnv } = {}) {
    // `env -i` gives the command exactly the environment the test chose (and a terminal type).
    const shellCommand = ["env", "-i", ...Object.entries({ TERM: "xterm-256color", PATH: process.env.PATH, ...env }).map(([k, v]) => `${k}=${v ?? ""}`), ...command]
      .map(quote)
      .join(" ");
    // The shell prints the exit status and keeps the pane open, so the last screen can still be read.
    this.tmux("new-session", "-d", "-s", "t", "-x", String(columns), "-y", String(rows), `${shellCommand}; echo "[exit $?]"; sleep 600`);
  }

  /** Keys as tmux names them: literal text, or `Enter`, `C-u`, `C-c`. */
  type(...keys: string[]): void {
    this.tmux("send-keys", "-t", "t", ...keys);
  }

  /** The screen as text, a line a row (a line the terminal wrapped is joined again). */
  screen(): string {
    return this.tmux("capture-pane", "-p", "-J", "-t", "t");
  }

  /** Waits until the screen shows `pattern`; the error shows the screen as it was. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // Already gone.
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  }
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
