import { setPriority } from "node:os";
import { chromium, type BrowserServer } from "playwright-core";
import { confineProcess } from "./browser-cpus.js";
import { lowerTree } from "./browser-process.js";

/**
 * The browser's host: a child process of the server (forked by browser-renderer.ts) that
 * launches Chromium with playwright-core's launchServer and hands back its WebSocket
 * endpoint. Why a process of its own: launchServer runs Playwright's server side — the
 * Chrome DevTools Protocol connection, every network event and route of every page, the
 * DOM of page.content() — in the process that calls it; in the server's process that was
 * half of the main thread's work during a browser crawl (bench/enrich-browser.js with
 * --cpu-prof). Here it runs beside the server, and the server only speaks Playwright's
 * compact client protocol.
 *
 * Priorities: this process lowers its own (nice 10: Playwright's protocol work yields to the
 * server), but Chromium sets each of its threads' priority itself, and run as root it may:
 * its threads start at nice 0 and its UI, IO and compositor threads at -8, above the
 * server's event loop. So the host brings every thread of Chromium's tree back to at least
 * nice 0, the server's own, every LOWER_EVERY_MS (new renderers and threads included), here,
 * where it costs the server's event loop nothing. Not to 10: on a machine loaded by other
 * work (load 20+ on 2 cores), a Chromium at nice 10 got so little time that pages missed
 * their budgets and closing a looping page took tens of seconds.
 *
 * Protocol over the IPC channel: the parent sends one LaunchRequest; the host answers
 * `{wsEndpoint, pid}` (Chromium's process id) or `{error}`. The host exits when Chromium
 * exits (a crash, a kill -9), and closes Chromium and exits when asked ("close"), on
 * SIGTERM, or when the parent goes away (the IPC channel closes).
 */
export interface LaunchRequest {
  executablePath: string;
  args: string[];
  proxy: string;
  /** The cores this host, Chromium and all they start run on (browser-cpus.ts); absent: not confined. */
  cpus?: number[];
}

export type LaunchAnswer = { wsEndpoint: string; pid: number } | { error: string };

try {
  setPriority(10);
} catch {
  // not permitted: unchanged
}

/** How often Chromium's threads are brought back to CHROMIUM_NICE (renderers start with each page). */
const LOWER_EVERY_MS = 250;
/** No thread of Chromium runs above the server (nice 0). */
const CHROMIUM_NICE = 0;

let server: BrowserServer | undefined;
let closing = false;

function closeAndExit(): void {
  if (closing) return;
  closing = true;
  const forced = setTimeout(() => {
    void server?.kill().finally(() => process.exit(0));
  }, 2000);
  void (server ? server.close() : Promise.resolve()).catch(() => undefined).finally(() => {
    clearTimeout(forced);
    process.exit(0);
  });
}

process.on("SIGTERM", closeAndExit);
process.on("disconnect", closeAndExit);
process.on("message", (message: LaunchRequest | "close") => {
  if (message === "close") return closeAndExit();
  if (server) return;
  void launch(message);
});

async function launch(request: LaunchRequest): Promise<void> {
  try {
    // Before Chromium starts: its processes and threads inherit this host's mask.
    if (request.cpus) await confineProcess(process.pid, request.cpus);
    server = await chromium.launchServer({
      executablePath: request.executablePath,
      headless: true,
      args: request.args,
      proxy: { server: request.proxy, bypass: "" },
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    // Chromium gone (a crash, kill -9): this host has nothing left to serve.
    server.process().once("exit", () => process.exit(0));
    const pid = server.process().pid;
    await lowerTree(pid, CHROMIUM_NICE);
    setInterval(() => void lowerTree(pid, CHROMIUM_NICE).catch(() => undefined), LOWER_EVERY_MS).unref();
    answer({ wsEndpoint: server.wsEndpoint(), pid: server.process().pid! });
  } catch (err) {
    answer({ error: String((err as Error)?.message ?? err).split("\n")[0]!.slice(0, 300) }, () => process.exit(1));
  }
}

function answer(message: LaunchAnswer, then?: () => void): void {
  if (process.send) process.send(message, undefined, {}, () => then?.());
  else then?.();
}
