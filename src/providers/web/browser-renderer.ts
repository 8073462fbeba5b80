import { chromium, type Browser, type BrowserContext, type BrowserServer } from "playwright-core";
import { lowerPriority, treeRssMb } from "./browser-process.js";
import { BrowserProxy } from "./browser-proxy.js";
import { Semaphore } from "./limiter.js";
import { FetchError, type SafeWebFetcher } from "./safe-fetcher.js";

/** A page as a browser shows it once its scripts ran. */
export interface RenderedPage {
  url: string;
  html: string;
}

export interface PageRenderer {
  render(url: string, signal: AbortSignal): Promise<RenderedPage>;
}

export interface BrowserRendererOptions {
  executablePath: string;
  /** Pages open at once (`OUTREACH_BROWSER_PAGES`). */
  pages: number;
  fetcher: SafeWebFetcher;
  /** Above this many MB (RSS of the browser's processes, checked after each page) the browser is replaced once its pages are done. */
  memoryCeilingMb?: number;
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

/**
 * One headless Chromium (Debian's, driven by playwright-core) shared by all crawls, at most
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
  private running: Promise<{ server: BrowserServer; browser: Browser }> | undefined;
  private lowered: BrowserServer | undefined;
  /** Pages open per browser process, and the processes to close once they have none. */
  private readonly open = new Map<BrowserServer, number>();
  private readonly retired = new Set<BrowserServer>();
  /** Browsers started since creation (a crash makes the next render start one). */
  launches = 0;

  constructor(private readonly options: BrowserRendererOptions) {
    this.proxy = new BrowserProxy(options.fetcher);
    this.slots = new Semaphore(Math.max(1, options.pages));
  }

  /** The browser's process id (tests kill it; figures read its memory). */
  async pid(): Promise<number | undefined> {
    return (await this.running?.catch(() => undefined))?.server.process().pid;
  }

  /** Requests the proxy refused since start. */
  get refused(): number {
    return this.proxy.refused;
  }

  private launch(): Promise<{ server: BrowserServer; browser: Browser }> {
    this.running ??= (async () => {
      this.proxyUrl ??= this.proxy.listen();
      const server = await chromium.launchServer({ executablePath: this.options.executablePath, headless: true, args: FLAGS, proxy: { server: await this.proxyUrl, bypass: "" }, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
      const browser = await chromium.connect(server.wsEndpoint());
      this.launches++;
      const forget = () => {
        this.running = undefined;
        void server.close().catch(() => {});
      };
      browser.on("disconnected", forget);
      server.process().once("exit", forget);
      return { server, browser };
    })();
    const attempt = this.running;
    attempt.catch(() => {
      if (this.running === attempt) this.running = undefined;
    });
    return attempt;
  }

  async render(url: string, signal: AbortSignal): Promise<RenderedPage> {
    const release = await this.slots.acquire(signal).catch(() => {
      throw new FetchError("aborted", "the render was cancelled");
    });
    let context: BrowserContext | undefined;
    let current: { server: BrowserServer } | undefined;
    const onAbort = () => void this.closeOrKill(context, current?.server);
    try {
      const { server, browser } = await this.launch();
      current = { server };
      this.open.set(server, (this.open.get(server) ?? 0) + 1);
      context = await browser.newContext({ acceptDownloads: false, serviceWorkers: "block", permissions: [], userAgent: this.options.fetcher.userAgent, javaScriptEnabled: true });
      signal.addEventListener("abort", onAbort, { once: true });
      await this.guard(context, signal);
      const page = await context.newPage();
      if (this.lowered !== server) {
        // Once per browser, after its first page: the zygotes that fork later renderers exist by now.
        this.lowered = server;
        lowerPriority(server.process().pid);
      }
      const left = () => Math.max(1, deadlineOf(signal) - Date.now());
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
      // The browser's own failure (a crash, a kill) says nothing lasting about the site: not cached.
      throw Object.assign(new FetchError("unreadable", `the browser could not show ${url}: ${String((err as Error)?.message ?? err).split("\n")[0]!.slice(0, 200)}`), { transient: true });
    } finally {
      signal.removeEventListener("abort", onAbort);
      await this.closeOrKill(context, current?.server);
      if (current) this.settle(current.server);
      release();
    }
  }

  /**
   * One page of `server` is done: above the memory ceiling the process is retired (the next
   * render starts a fresh one) and closed when its last page is.
   */
  private settle(server: BrowserServer): void {
    const left = (this.open.get(server) ?? 1) - 1;
    this.open.set(server, left);
    const ceiling = this.options.memoryCeilingMb;
    if (ceiling && !this.retired.has(server) && treeRssMb(server.process().pid) > ceiling) {
      this.retired.add(server);
      void this.running?.then((r) => {
        if (r.server === server) this.running = undefined;
      });
    }
    if (left === 0 && this.retired.has(server)) {
      this.retired.delete(server);
      this.open.delete(server);
      void server.close().catch(() => {});
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
  private async closeOrKill(context: BrowserContext | undefined, server: BrowserServer | undefined): Promise<void> {
    if (!context) return;
    const closed = await Promise.race([context.close().then(() => true, () => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref())]);
    if (!closed && server) await server.kill().catch(() => {});
  }

  async close(): Promise<void> {
    const running = await this.running?.catch(() => undefined);
    this.running = undefined;
    await running?.server.close().catch(() => {});
    if (this.proxyUrl) await this.proxy.close();
  }
}

/** When the caller's signal will end the render: the crawler's signals carry no deadline, so a bound is assumed. */
function deadlineOf(signal: AbortSignal & { deadline?: number }): number {
  return signal.deadline ?? Date.now() + 15_000;
}
