import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { isIP } from "node:net";
import { hostname as osHostname } from "node:os";
import type { PlacesSettings } from "../places/index.js";
import type { ImapSettings } from "../providers/imap/mailbox-reader.js";
import { parseBrowserCpus, type BrowserCpuSetting } from "../providers/web/browser-cpus.js";
import type { RelaySettings } from "../providers/smtp/relay.js";
import { imapSettings } from "./replies/imap-config.js";

/**
 * The server's settings, read once from the environment (docs/self-hosting.md, "Settings
 * settings"). Every value is checked here so a typo fails at start-up with a message
 * naming the variable, rather than at the first request.
 */
export interface ServerConfig extends PlacesSettings {
  /** Requests per minute per token; 0 turns rate limiting off. */
  rateLimitPerMinute: number;
  /** Website enrichment on/off (`OUTREACH_ENRICH=0` for air-gapped use). */
  enrich: boolean;
  /** Total enrichment time budget of one search, in milliseconds. */
  enrichBudgetMs: number;
  /** CIDRs the website fetcher may reach although they are not public (tests, private deployments). */
  fetchAllow: string[];
  /** `host[:port]` DNS servers for sending-domain verification; empty: the system's resolvers. */
  dnsServers: string[];
  /** Origins allowed by CORS; empty: no CORS headers at all. */
  corsOrigins: string[];
  /** The User-Agent of the website fetcher. */
  userAgent: string;
  /** Host that return-path CNAMEs of sending domains point to. */
  bounceHost: string;
  /** Per-try timeout of a sending-domain DNS lookup, in milliseconds. */
  dnsTimeoutMs: number;
  /** Tries per DNS server and lookup before it counts as a temporary failure. */
  dnsTries: number;
  /** Seconds between two DNS verifications of one sending domain; 0 turns the limit off. */
  domainVerifyIntervalSeconds: number;
  /** The host sending domains' advisory SPF record includes (`include:<host>`). */
  spfInclude: string;
  /** Website enrichment: time budget of one site, of one retry (endpoint 2), cache lifetimes, connections. */
  enrichSiteBudgetMs: number;
  enrichRetryBudgetMs: number;
  /** `OUTREACH_BROWSER`: the Chromium binary for script-built pages, or null (off, the default). */
  browser: string | null;
  /** `OUTREACH_BROWSER_PAGES`: pages the browser shows at once. */
  browserPages: number;
  /** `OUTREACH_BROWSER_MEMORY_MB`: above it (RSS of the browser's processes) the browser is replaced. */
  browserMemoryMb: number;
  /** `OUTREACH_BROWSER_CPUS`: the cores the browser may use (auto: all but the last; all; or a list). */
  browserCpus: BrowserCpuSetting;
  enrichCacheDays: number;
  enrichFailureCacheHours: number;
  fetchConnections: number;
  /** How long `serve` lets in-flight requests finish after SIGINT/SIGTERM, in milliseconds. */
  shutdownTimeoutMs: number;
  /** Failed authentications per minute per client address (bursts up to as many); 0 turns the limit off. */
  authFailuresPerMinute: number;
  /** CIDRs of reverse proxies whose `X-Forwarded-For` names the client address. */
  trustedProxies: string[];
  /** Drop found emails whose domain cannot receive mail (DNS through `dnsServers`; `OUTREACH_EMAIL_DNS_CHECK=0` turns it off). */
  emailDnsCheck: boolean;
  /** The outgoing proxy of website fetching (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; upper or lower case). */
  proxy: { http?: string; https?: string; noProxy: string[] };
  /** The SMTP relay campaigns are delivered through (`OUTREACH_SMTP_URL`); unset: nothing is delivered. */
  smtp?: SmtpSettings;
  /** Where recipients reach this server (`OUTREACH_PUBLIC_URL`, no trailing slash): unsubscribe links. */
  publicUrl?: string;
  /** The mailbox replies arrive in (`OUTREACH_IMAP_URL`); unset: no reply detection. */
  imap?: ImapSettings;
  /** How often a mailbox without IDLE is polled, in seconds (`OUTREACH_IMAP_POLL_SECONDS`). */
  imapPollSeconds: number;
  /** Messages per minute per sending domain (`OUTREACH_SEND_PER_MINUTE`); 0: no limit. */
  sendPerMinute: number;
  /** Messages per minute from one sending domain to one recipient domain; 0: no limit. */
  sendPerRecipientDomainPerMinute: number;
  /** Address verification's SMTP probe (docs/api.md, "Address verification"). */
  verify: VerifySettings;
  /** The AI model of drafts and openers (`OUTREACH_AI_*`); url or model null: not configured (503 `ai_not_configured`). */
  ai: AiSettings;
}

export interface VerifySettings {
  /** `OUTREACH_VERIFY_SMTP=1`: probe mailboxes over SMTP (off: a domain that receives mail gives `unknown`). */
  smtp: boolean;
  /** `OUTREACH_VERIFY_SMTP_PORT` (default 25). */
  port: number;
  /** `OUTREACH_HELO_NAME`: the EHLO name (default: OUTREACH_PUBLIC_URL's host, else this machine's name). */
  heloName: string;
  /** `OUTREACH_VERIFY_PER_DOMAIN_PER_MINUTE` (default 10): probe connections per recipient domain per minute. */
  perDomainPerMinute: number;
  /** `OUTREACH_VERIFY_SMTP_TIMEOUT_MS` (default 15000): the connection and each reply. */
  timeoutMs: number;
  /** `OUTREACH_VERIFY_SMTP_ALLOW`: CIDRs of non-public MX addresses the probe may reach (tests: 127.0.0.0/8). */
  allow: string[];
}

/** An OpenAI-compatible Chat Completions endpoint (docs/self-hosting.md, "AI drafts"). */
export interface AiSettings {
  /** Base URL ending in /v1 (`OUTREACH_AI_URL`). */
  url: string | null;
  /** Bearer key (`OUTREACH_AI_KEY`), optional for local servers. */
  key: string | null;
  /** Model name (`OUTREACH_AI_MODEL`). */
  model: string | null;
  /** Time limit of one call, retries and waits included (`OUTREACH_AI_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Requests in flight at once when generating openers (`OUTREACH_AI_CONCURRENCY`). */
  concurrency: number;
  /** Prompts and answers go to the server's log (`OUTREACH_AI_DEBUG=1`); never otherwise. */
  debug: boolean;
}

/**
 * An SMTP relay from `smtp://user:pass@host:port` or `smtps://…` (TLS from the start), with
 * the connections kept open to it (`OUTREACH_SMTP_CONNECTIONS`).
 */
export type SmtpSettings = Pick<RelaySettings, "host" | "port" | "secure" | "user" | "pass" | "connections">;

/** A server setting (an environment variable) that is missing or malformed: the CLI exits 2 and the message names the variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** What `deliver` says without a relay (the same style as the other missing settings: the variable, "must be set", why, an example). */
export const MISSING_SMTP_URL =
  "OUTREACH_SMTP_URL must be set to deliver: the SMTP relay messages go out through (e.g. smtp://user:pass@relay.example:587), with OUTREACH_PUBLIC_URL for the unsubscribe links";

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? "").trim().toLowerCase();
  if (raw === "") return fallback;
  if (["1", "true", "on", "yes"].includes(raw)) return true;
  if (["0", "false", "off", "no"].includes(raw)) return false;
  throw new ConfigError(`${name} must be 0 or 1 (got ${JSON.stringify(env[name])})`);
}

/** `HTTPS_PROXY` and friends, upper case first (as curl reads them); an empty value is unset. */
function proxyVariable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  for (const key of [name, name.toLowerCase()]) {
    const raw = env[key]?.trim();
    if (!raw) continue;
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
    } catch {
      throw new ConfigError(`${key} must be a proxy URL such as http://proxy.example:3128 (got ${JSON.stringify(raw)})`);
    }
    if (url.protocol !== "http:" || !url.hostname || (url.pathname !== "/" && url.pathname !== "")) {
      throw new ConfigError(`${key} must be an http:// proxy URL with a host and an optional port (got ${JSON.stringify(raw)}); https:// and socks proxies are not supported`);
    }
    return url.href;
  }
  return undefined;
}

function cidr(value: string, name: string): string {
  const [address, bits, ...rest] = value.split("/");
  const family = isIP(address ?? "");
  const maxBits = family === 6 ? 128 : 32;
  const prefix = bits === undefined ? maxBits : Number(bits);
  if (!family || rest.length || !Number.isInteger(prefix) || prefix < 0 || prefix > maxBits) {
    throw new ConfigError(`${name}: ${JSON.stringify(value)} is not an IP address or CIDR range`);
  }
  return `${address}/${prefix}`;
}

/**
 * `host[:port]` of a DNS server: node:dns takes IP addresses only (`1.1.1.1`,
 * `127.0.0.1:5353`, `::1`, `[::1]:5353`), so a name is refused here, at start-up.
 */
function dnsServer(value: string, name: string): string {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  const hostPort = /^([^:]+)(?::(\d+))?$/.exec(value);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : hostPort ? [hostPort[1]!, hostPort[2]] : [value, undefined];
  const portOk = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  if (!isIP(host) || !portOk) {
    throw new ConfigError(`${name}: ${JSON.stringify(value)} is not an IP address with an optional port (e.g. 127.0.0.1:5353 or [::1]:5353)`);
  }
  return value;
}

function verifySettings(env: NodeJS.ProcessEnv): VerifySettings {
  const publicHost = (() => {
    try {
      return env.OUTREACH_PUBLIC_URL?.trim() ? new URL(env.OUTREACH_PUBLIC_URL.trim()).hostname : undefined;
    } catch {
      return undefined;
    }
  })();
  const helo = env.OUTREACH_HELO_NAME?.trim() || publicHost || osHostname() || "localhost";
  return {
    smtp: flag(env, "OUTREACH_VERIFY_SMTP", false),
    port: integer(env, "OUTREACH_VERIFY_SMTP_PORT", 25, 1, 65_535),
    heloName: env.OUTREACH_HELO_NAME?.trim() ? hostName(helo, "OUTREACH_HELO_NAME") : helo,
    perDomainPerMinute: integer(env, "OUTREACH_VERIFY_PER_DOMAIN_PER_MINUTE", 10, 0, 100_000),
    timeoutMs: integer(env, "OUTREACH_VERIFY_SMTP_TIMEOUT_MS", 15_000, 50, 600_000),
    allow: list(env.OUTREACH_VERIFY_SMTP_ALLOW).map((v) => cidr(v, "OUTREACH_VERIFY_SMTP_ALLOW")),
  };
}

function hostName(value: string, name: string): string {
  if (!/^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(value)) {
    throw new ConfigError(`${name} must be a host name (got ${JSON.stringify(value)})`);
  }
  return value.toLowerCase();
}

function smtpSettings(env: NodeJS.ProcessEnv): SmtpSettings | undefined {
  const raw = env.OUTREACH_SMTP_URL?.trim();
  const connections = integer(env, "OUTREACH_SMTP_CONNECTIONS", 5, 1, 50);
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`OUTREACH_SMTP_URL must be a URL such as smtp://user:pass@relay.example:587 (got ${JSON.stringify(raw.replace(/\/\/[^@/]*@/, "//…@"))})`);
  }
  if ((url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname || (url.pathname !== "" && url.pathname !== "/")) {
    throw new ConfigError("OUTREACH_SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://… (TLS from the start)");
  }
  const secure = url.protocol === "smtps:";
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    user: url.username ? decodeURIComponent(url.username) : undefined,
    pass: url.password ? decodeURIComponent(url.password) : undefined,
    connections,
  };
}

function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.OUTREACH_PUBLIC_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`OUTREACH_PUBLIC_URL must be the URL recipients reach this server at, such as https://outreach.example.com (got ${JSON.stringify(raw)})`);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash || url.username) {
    throw new ConfigError(`OUTREACH_PUBLIC_URL must be an http(s) URL without query, fragment or credentials (got ${JSON.stringify(raw)})`);
  }
  return url.href.replace(/\/+$/, "");
}

/** An http(s) base URL of an outside service, or null when the variable is unset. */
function serviceUrl(env: NodeJS.ProcessEnv, name: string, fallback: string | null = null): string | null {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL (got ${JSON.stringify(raw)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${name} must be an http:// or https:// URL (got ${JSON.stringify(raw)})`);
  return raw.replace(/\/+$/, "");
}

const PLACE_SOURCES = ["local", "google", "overpass"];

/** `OUTREACH_PLACES_SOURCES`: known and configured names, or local plus every configured source. */
function placesSources(env: NodeJS.ProcessEnv, configured: string[]): string[] {
  const names = list(env.OUTREACH_PLACES_SOURCES).map((n) => n.toLowerCase());
  if (names.length === 0) return configured;
  for (const name of names) {
    if (!PLACE_SOURCES.includes(name)) throw new ConfigError(`OUTREACH_PLACES_SOURCES: unknown source ${JSON.stringify(name)} (known: ${PLACE_SOURCES.join(", ")})`);
    if (!configured.includes(name)) throw new ConfigError(`OUTREACH_PLACES_SOURCES names ${name}, which is not configured (set ${name === "google" ? "OUTREACH_GOOGLE_PLACES_KEY" : "OUTREACH_OVERPASS_URL"})`);
  }
  return [...new Set(names)];
}

/** `OUTREACH_BROWSER`: off (default, also 0/false/no), `auto` (chromium from PATH) or the path of a Chromium binary. */
function browserPath(raw: string | undefined): string | null {
  const value = raw?.trim() ?? "";
  if (value === "" || ["0", "off", "false", "no"].includes(value.toLowerCase())) return null;
  const executable = (path: string) => {
    try {
      accessSync(path, fsConstants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (value.toLowerCase() === "auto") {
    const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
    for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
      const found = dirs.map((dir) => join(dir, name)).find(executable);
      if (found) return found;
    }
    throw new ConfigError("OUTREACH_BROWSER=auto: no chromium, chromium-browser or google-chrome on PATH (install Debian's chromium, or give its path)");
  }
  if (!isAbsolute(value) || !executable(value)) throw new ConfigError(`OUTREACH_BROWSER must be off, auto or the absolute path of an executable Chromium (got ${JSON.stringify(value)})`);
  return value;
}

function browserCpuSetting(raw: string | undefined): BrowserCpuSetting {
  try {
    return parseBrowserCpus(raw);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

export function loadServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const enrichRaw = (env.OUTREACH_ENRICH ?? "1").trim().toLowerCase();
  if (!["0", "1", "false", "true", "off", "on", "no", "yes"].includes(enrichRaw)) {
    throw new ConfigError(`OUTREACH_ENRICH must be 0 or 1 (got ${JSON.stringify(env.OUTREACH_ENRICH)})`);
  }
  const bounceHost = hostName(env.OUTREACH_BOUNCE_HOST?.trim().replace(/\.$/, "") || "bounces.outreach.localhost", "OUTREACH_BOUNCE_HOST");
  const googlePlacesKey = env.OUTREACH_GOOGLE_PLACES_KEY?.trim() || null;
  const overpassUrl = serviceUrl(env, "OUTREACH_OVERPASS_URL");
  const configuredSources = ["local", ...(googlePlacesKey ? ["google"] : []), ...(overpassUrl ? ["overpass"] : [])];
  const config: ServerConfig = {
    googlePlacesKey,
    googlePlacesUrl: serviceUrl(env, "OUTREACH_GOOGLE_PLACES_URL", "https://places.googleapis.com")!,
    googleMaxRequests: integer(env, "OUTREACH_GOOGLE_MAX_REQUESTS", 40, 1, 1000),
    overpassUrl,
    overpassCacheSeconds: integer(env, "OUTREACH_OVERPASS_CACHE_SECONDS", 600, 0, 7 * 86_400),
    nominatimUrl: serviceUrl(env, "OUTREACH_NOMINATIM_URL"),
    sourceTimeoutMs: integer(env, "OUTREACH_SOURCE_TIMEOUT_MS", 30_000, 100, 600_000),
    placesSources: placesSources(env, configuredSources),
    geofabrikUrl: serviceUrl(env, "OUTREACH_GEOFABRIK_URL", "https://download.geofabrik.de")!,
    rateLimitPerMinute: integer(env, "OUTREACH_RATE_LIMIT", 120, 0, 1_000_000),
    enrich: !["0", "false", "off", "no"].includes(enrichRaw),
    enrichBudgetMs: integer(env, "OUTREACH_ENRICH_BUDGET_MS", 8000, 100, 600_000),
    fetchAllow: list(env.OUTREACH_FETCH_ALLOW).map((v) => cidr(v, "OUTREACH_FETCH_ALLOW")),
    dnsServers: list(env.OUTREACH_DNS_SERVERS).map((v) => dnsServer(v, "OUTREACH_DNS_SERVERS")),
    corsOrigins: list(env.OUTREACH_CORS_ORIGINS),
    userAgent: env.OUTREACH_USER_AGENT?.trim() || "outreach/0.1 (+https://github.com/outreach-cli/outreach; lead enrichment)",
    bounceHost,
    dnsTimeoutMs: integer(env, "OUTREACH_DNS_TIMEOUT_MS", 2500, 10, 60_000),
    dnsTries: integer(env, "OUTREACH_DNS_TRIES", 2, 1, 10),
    domainVerifyIntervalSeconds: integer(env, "OUTREACH_DOMAIN_VERIFY_INTERVAL", 10, 0, 86_400),
    spfInclude: hostName(env.OUTREACH_SPF_INCLUDE?.trim().replace(/\.$/, "") || `_spf.${bounceHost}`, "OUTREACH_SPF_INCLUDE"),
    enrichSiteBudgetMs: integer(env, "OUTREACH_ENRICH_SITE_BUDGET_MS", 6000, 100, 600_000),
    enrichRetryBudgetMs: integer(env, "OUTREACH_ENRICH_RETRY_BUDGET_MS", 25_000, 100, 600_000),
    browser: browserPath(env.OUTREACH_BROWSER),
    browserPages: integer(env, "OUTREACH_BROWSER_PAGES", 2, 1, 16),
    browserMemoryMb: integer(env, "OUTREACH_BROWSER_MEMORY_MB", 2048, 1, 65_536),
    browserCpus: browserCpuSetting(env.OUTREACH_BROWSER_CPUS),
    enrichCacheDays: integer(env, "OUTREACH_ENRICH_CACHE_DAYS", 7, 0, 365),
    enrichFailureCacheHours: integer(env, "OUTREACH_ENRICH_FAILURE_CACHE_HOURS", 6, 0, 24 * 30),
    fetchConnections: integer(env, "OUTREACH_FETCH_CONNECTIONS", 16, 1, 256),
    shutdownTimeoutMs: integer(env, "OUTREACH_SHUTDOWN_TIMEOUT_MS", 15_000, 100, 600_000),
    authFailuresPerMinute: integer(env, "OUTREACH_AUTH_FAILURES_PER_MINUTE", 20, 0, 100_000),
    trustedProxies: list(env.OUTREACH_TRUSTED_PROXIES).map((v) => cidr(v, "OUTREACH_TRUSTED_PROXIES")),
    emailDnsCheck: flag(env, "OUTREACH_EMAIL_DNS_CHECK", true),
    proxy: { http: proxyVariable(env, "HTTP_PROXY"), https: proxyVariable(env, "HTTPS_PROXY"), noProxy: list(env.NO_PROXY ?? env.no_proxy) },
    smtp: smtpSettings(env),
    publicUrl: publicUrl(env),
    imap: imapSettings(env, (message) => new ConfigError(message)),
    imapPollSeconds: integer(env, "OUTREACH_IMAP_POLL_SECONDS", 60, 1, 86_400),
    sendPerMinute: integer(env, "OUTREACH_SEND_PER_MINUTE", 20, 0, 1_000_000),
    sendPerRecipientDomainPerMinute: integer(env, "OUTREACH_SEND_PER_RECIPIENT_DOMAIN_PER_MINUTE", 5, 0, 1_000_000),
    verify: verifySettings(env),
    ai: {
      url: serviceUrl(env, "OUTREACH_AI_URL"),
      key: env.OUTREACH_AI_KEY?.trim() || null,
      model: env.OUTREACH_AI_MODEL?.trim() || null,
      timeoutMs: integer(env, "OUTREACH_AI_TIMEOUT_MS", 60_000, 100, 600_000),
      concurrency: integer(env, "OUTREACH_AI_CONCURRENCY", 4, 1, 64),
      debug: flag(env, "OUTREACH_AI_DEBUG", false),
    },
  };
  if (config.smtp && !config.publicUrl) {
    throw new ConfigError("OUTREACH_PUBLIC_URL must be set to deliver: every message's unsubscribe link points to it (e.g. https://outreach.example.com)");
  }
  return config;
}
