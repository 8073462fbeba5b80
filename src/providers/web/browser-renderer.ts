import { fork, type ChildProcess } from "node:child_process";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { compiledWorkerFile } from "../../core/task-threads.js";
import type { LaunchAnswer, LaunchRequest } from "./browser-host.js";
import { allowedCpus, browserCpus, type BrowserCpuSetting } from "./browser-cpus.js";
import { treeRssMb } from "./browser-process.js";
import { BrowserProxy } from "./browser-proxy.js";
import { Semaphore } from "./limiter.js";
import { FetchError, type SafeWebFetcher } from "./safe-fetcher.js";

/** A page as a browser shows it once its scripts ran. */
export interface RenderedPage {
  url: string;
  html: string;
}

export interface PageRenderer {
  /** `timeoutMs`: what is left of the site's budget (Playwright's own limits); absent: DEFAULT_TIMEOUT_MS. */
  render(url: string, signal: AbortSignal, timeoutMs?: number): Promise<RenderedPage>;
}

export interface BrowserRendererOptions {
  executablePath: string;
  /** Pages open at once (`OUTREACH_BROWSER_PAGES`). */
  pages: number;
  fetcher: SafeWebFetcher;
  /** Above this many MB (RSS of the browser's processes, checked after each page) the browser is replaced once its pages are done. */
  memoryCeilingMb?: number;
  /** Cores the browser may use (`OUTREACH_BROWSER_CPUS`, browser-cpus.ts); default auto: all but the server's last. */
  cpus?: BrowserCpuSetting;
}

/**
 * Chromium flags: nothing leaves except through our proxy (WebRTC's UDP included), nothing
 * runs in the background, nothing is kept.
 */
const FLAGS = [
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-domain-reliability",
  "--disable-sync",
  "--disable-extensions",
  "--no-pings",
  "--dns-prefetch-disable",
  "--no-first-run",
  "--disable-features=NetworkPrediction,InterestFeedContentSuggestions,MediaRouter,DialMediaRouteProvider",
  "--block-new-web-contents",
  "--disable-dev-shm-usage",
];

/** What a page's scripts could use to reach around the proxy or the user's machine: gone before they run. */
const INIT_SCRIPT = `for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"]) { try { delete window[name]; } catch {} }
window.open = () => null; window.print = () => {};`;

/** Time a page may take to close at its budget before the whole browser is killed. */
const CLOSE_GRACE_MS = 2000;
/** Playwright's limit for a render whose caller gives no budget. */
const DEFAULT_TIMEOUT_MS = 15_000;
/** Time the browser's host may take to start Chromium. */
const LAUNCH_TIMEOUT_MS = 30_000;

/** One running browser: its host process (browser-host.ts), Chromium's process id, and the client connected to it. */
interface RunningBrowser {
  host: ChildProcess;
  pid: number;
  browser: Browser;
}

/**
 * One headless Chromium (Debian's, driven by playwright-core) shared by all crawls, launched
 * by a host process of its own at a lower priority (browser-host.ts: Playwright's protocol
 * work stays off the server's event loop), at most
 * `pages` pages at once, each in its own context (no cookies shared between sites). Every
 * request goes through BrowserProxy; the route handler refuses what is not http(s) and what
 * robots.txt disallows; downloads, service workers, permissions, popups and dialogs are
 * refused or dismissed. A page is closed at its budget, and the process killed when it does
 * not close; a crashed or killed browser fails the renders it had and the next render starts
 * a fresh one. Failures are FetchErrors: the site's failure, never the server's.
 */
export class BrowserRenderer implements PageRenderer {
  private readonly proxy: BrowserProxy;
  private proxyUrl: Promise<string> | undefined;
  private readonly slots: Semaphore;
  private running: Promise<RunningBrowser> | undefined;
  /** Pages open per browser process, and the processes to close once they have none. */
  private readonly open = new Map<RunningBrowser, number>();
  private readonly retired = new Set<RunningBrowser>();
  /** Browsers started since creation (a crash makes the next render start one). */
  launches = 0;

  constructor(private readonly options: BrowserRendererOptions) {
    this.proxy = new BrowserProxy(options.fetcher);
    this.slots = new Semaphore(Math.max(1, options.pages));
  }

  /** The browser's process id (tests kill it; figures read its memory). */
  async pid(): Promise<number | undefined> {
    return (await this.running?.catch(() => undefined))?.pid;
  }

  /** Requests the proxy refused since start. */
  get refused(): number {
    return this.proxy.refused;
  }

  private launch(): Promise<RunningBrowser> {
    if (this.running) return this.running;
    const attempt = this.start();
    this.running = attempt;
    const forget = () => {
      if (this.running === attempt) this.running = undefined;
    };
    attempt.then((running) => {
      // Chromium or its host gone (a crash, kill -9): the next render starts a fresh one.
      running.browser.on("disconnected", () => {
        forget();
        stopHost(running.host, "close");
      });
      running.host.once("exit", () => {
        forget();
        void running.browser.close().catch(() => {});
      });
    }, forget);
    return attempt;
  }

  /** A host process (browser-host.ts) launches Chromium; this process connects to it as a client. */
  private async start(): Promise<RunningBrowser> {
    this.proxyUrl ??= this.proxy.listen();
    const cpus = browserCpus(this.options.cpus ?? "auto", allowedCpus());
    const request: LaunchRequest = { executablePath: this.options.executablePath, args: FLAGS, proxy: await this.proxyUrl, ...(cpus ? { cpus } : {}) };
    // No execArgv: the server's own flags (--cpu-prof, --import …) are not the host's.
    const host = fork(compiledWorkerFile("./browser-host.js", import.meta.url), [], { execArgv: [], stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "json" });
    host.on("error", () => undefined); // a failed send or spawn: the answer below reports it
    const answer = await hostAnswer(host, request).catch((err: unknown) => {
      stopHost(host, "kill");
      throw err;
    });
    try {
      const browser = await chromium.connect(answer.wsEndpoint);
      this.launches++;
      return { host, pid: answer.pid, browser };
    } catch (err) {
      stopHost(host, "kill", answer.pid);
      throw err;
    }
  }

  async render(url: string, signal: AbortSignal, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RenderedPage> {
    // Counted from the call: the wait for a free page is part of the site's budget.
    const deadline = performance.now() + timeoutMs;
    const release = await this.slots.acquire(signal).catch(() => {
      throw new FetchError("aborted", "the render was cancelled");
    });
    let context: BrowserContext | undefined;
    let current: RunningBrowser | undefined;
    const onAbort = () => void this.closeOrKill(context, current);
    try {
      current = await this.launch();
      const { browser } = current;
      this.open.set(current, (this.open.get(current) ?? 0) + 1);
      context = await browser.newContext({ acceptDownloads: false, serviceWorkers: "block", permissions: [], userAgent: this.options.fetcher.userAgent, javaScriptEnabled: true });
      signal.addEventListener("abort", onAbort, { once: true });
      await this.guard(context, signal);
      const page = await context.newPage();
      const left = () => Math.max(1, deadline - performance.now());
      await page.goto(url, { waitUntil: "load", timeout: left() });
      // Scripts that fill the page after load, and challenges that set a cookie and reload.
      await page.waitForLoadState("networkidle", { timeout: Math.min(3000, left()) }).catch(() => {});
      await page.waitForLoadState("load", { timeout: Math.min(3000, left()) }).catch(() => {});
      const final = page.url();
      if (!/^https?:/i.test(final)) throw new FetchError("blocked", `the page navigated to ${final.slice(0, 40)}`);
      return { url: final, html: await page.content() };
    } catch (err) {
      if (err instanceof FetchError) throw err;
      if (signal.aborted) throw new FetchError("aborted", "the render was cancelled");
      // A page that did not load within Playwright's own time limit is a slow site (retryable,
      // pending in a search), not a broken browser.
      if ((err as Error)?.name === "TimeoutError") throw new FetchError("timeout", `${url} did not load in time`);
      // The browser's own failure (a crash, a kill) says nothing lasting about the site: not cached.
      throw Object.assign(new FetchError("unreadable", `the browser could not show ${url}: ${String((err as Error)?.message ?? err).split("\n")[0]!.slice(0, 200)}`), { transient: true });
    } finally {
      signal.removeEventListener("abort", onAbort);
      await this.closeOrKill(context, current);
      if (current) await this.settle(current);
      release();
    }
  }

  /**
   * One page of `running` is done: above the memory ceiling the process is retired (the next
   * render starts a fresh one) and closed when its last page is. Its memory is read from
   * /proc without blocking the event loop.
   */
  private async settle(running: RunningBrowser): Promise<void> {
    this.open.set(running, (this.open.get(running) ?? 1) - 1);
    const ceiling = this.options.memoryCeilingMb;
    if (ceiling && !this.retired.has(running) && (await treeRssMb(running.pid)) > ceiling) {
      this.retired.add(running);
      void this.running?.then((r) => {
        if (r === running) this.running = undefined;
      });
    }
    // Read again: pages of this browser may have started or ended meanwhile.
    if (this.open.get(running) === 0 && this.retired.has(running)) {
      this.retired.delete(running);
      this.open.delete(running);
      stopHost(running.host, "close");
    }
  }

  /** Routes and events of one site's context. */
  private async guard(context: BrowserContext, signal: AbortSignal): Promise<void> {
    await context.addInitScript(INIT_SCRIPT);
    await context.route("**/*", async (route) => {
      const target = route.request().url();
      const allowed = /^https?:/i.test(target) && (await this.options.fetcher.robotsAllow(target, signal).catch(() => false));
      if (allowed) await route.continue().catch(() => {});
      else await route.abort("blockedbyclient").catch(() => {});
    });
    await context.routeWebSocket(/.*/, async (ws) => {
      const asHttp = ws.url().replace(/^ws/i, "http");
      if (await this.options.fetcher.robotsAllow(asHttp, signal).catch(() => false)) ws.connectToServer();
      else await ws.close({ code: 1008, reason: "refused" }).catch(() => {});
    });
    context.on("page", (page) => {
      page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
      // Only the first page of a context is ours: popups close at once.
      if (context.pages()[0] !== page) void page.close().catch(() => {});
      // A page that leaves the web (file://, chrome://) is closed; a refused frame shows Chromium's
      // error page inside the frame, which is harmless and stays.
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame() && !/^(?:https?:|about:blank)/i.test(frame.url())) void page.close().catch(() => {});
      });
    });
  }

  /** Close the site's context; if it does not close in time (a script that never yields), kill the browser. */
  private async closeOrKill(context: BrowserContext | undefined, running: RunningBrowser | undefined): Promise<void> {
    if (!context) return;
    const closed = await Promise.race([context.close().then(() => true, () => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref())]);
    if (!closed && running) stopHost(running.host, "kill", running.pid);
  }

  async close(): Promise<void> {
    const running = await this.running?.catch(() => undefined);
    this.running = undefined;
    if (running) {
      const exited = new Promise<void>((resolve) => (running.host.exitCode !== null || running.host.signalCode !== null ? resolve() : running.host.once("exit", () => resolve())));
      stopHost(running.host, "close");
      // Chromium closes in well under a second; one that does not is killed.
      const timer = setTimeout(() => stopHost(running.host, "kill", running.pid), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    if (this.proxyUrl) await this.proxy.close();
  }
}

/** The host's answer to its launch request; its exit, a spawn failure or LAUNCH_TIMEOUT_MS reject. */
function hostAnswer(host: ChildProcess, request: LaunchRequest): Promise<{ wsEndpoint: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      host.off("message", onMessage);
      host.off("exit", onExit);
      host.off("error", onError);
    };
    const onMessage = (answer: LaunchAnswer) => {
      done();
      if ("error" in answer) reject(new Error(answer.error));
      else resolve(answer);
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`the browser's host exited (${signal ?? code}) before the browser started`));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const timer = setTimeout(() => onError(new Error(`the browser did not start within ${LAUNCH_TIMEOUT_MS} ms`)), LAUNCH_TIMEOUT_MS);
    timer.unref();
    host.on("message", onMessage);
    host.once("exit", onExit);
    host.once("error", onError);
    host.send(request);
  });
}

/**
 * Ends a browser: "close" asks its host to close Chromium and exit (the host also does so on
 * SIGTERM); "kill" kills Chromium's process group (it leads one) and the host at once.
 */
function stopHost(host: ChildProcess, how: "close" | "kill", chromiumPid?: number): void {
  const running = host.exitCode === null && host.signalCode === null;
  if (how === "close") {
    if (running && host.connected) host.send("close", (err) => err && host.kill("SIGTERM"));
    else if (running) host.kill("SIGTERM");
    return;
  }
  if (chromiumPid !== undefined) {
    try {
      process.kill(-chromiumPid, "SIGKILL");
    } catch {
      try {
        process.kill(chromiumPid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  if (running) host.kill("SIGKILL");
}

