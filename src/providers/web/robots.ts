/**
 * robots.txt per RFC 9309: groups of `user-agent` lines followed by `allow`/`disallow`
 * rules; the crawler obeys the groups naming its product token (case-insensitive; all
 * such groups combined), else the `*` groups; the longest matching rule wins and `allow`
 * wins a tie; `*` matches any run of characters and a trailing `$` anchors the end.
 */

/** RFC 9309 2.5: crawlers must parse at least 500 KiB. */
export const ROBOTS_MAX_BYTES = 512 * 1024;

interface Rule {
  allow: boolean;
  pattern: string;
  /** The pattern's path form split at `*` (percent-encoding normalised), and whether `$` anchors it. */
  parts: string[];
  anchored: boolean;
}

interface Group {
  agents: string[];
  rules: Rule[];
}

export class RobotsRules {
  /** The rules that apply to a product token, worked out once per token (a hostile file holds 30,000 groups). */
  private readonly applicable = new Map<string, Rule[]>();

  private constructor(
    private readonly groups: Group[],
    /** `allow-all` (4xx, no file) or `disallow-all` (5xx, unreachable) short-cuts. */
    private readonly fallback?: "allow-all" | "disallow-all",
  ) {}

  static allowAll(): RobotsRules {
    return new RobotsRules([], "allow-all");
  }

  static disallowAll(): RobotsRules {
    return new RobotsRules([], "disallow-all");
  }

  static parse(text: string): RobotsRules {
    const parser = new RobotsParser();
    parser.feed(robotsLines(text), 0, Number.POSITIVE_INFINITY);
    return new RobotsRules(parser.groups);
  }

  /**
   * The same parse in slices of ROBOTS_SLICE_LINES lines, yielding to the event loop between
   * them: a hostile 512 KiB file (30,000 groups) takes 25–40 ms to parse on a quiet 2-core
   * machine, which on the server's thread is a stall of every request; sliced, no stall is
   * longer than one slice.
   */
  static async parseYielding(text: string): Promise<RobotsRules> {
    const parser = new RobotsParser();
    const lines = robotsLines(text);
    for (let at = 0; at < lines.length; at += ROBOTS_SLICE_LINES) {
      if (at > 0) await new Promise((resolve) => setImmediate(resolve));
      parser.feed(lines, at, at + ROBOTS_SLICE_LINES);
    }
    return new RobotsRules(parser.groups);
  }

  /** May a crawler with this product token (e.g. `outreach`) fetch this path (+ query)? */
  isAllowed(productToken: string, pathAndQuery: string): boolean {
    if (this.fallback) return this.fallback === "allow-all";
    if (pathAndQuery === "/robots.txt") return true;
    const rules = this.rulesFor(productToken.toLowerCase());
    const path = normalisePath(pathAndQuery);
    let best: Rule | undefined;
    for (const rule of rules) {
      if (!matches(rule, path)) continue;
      if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
    }
    return best ? best.allow : true;
  }

  /**
   * The groups naming the token, else the `*` groups, merged; a rule repeated (same verb, same
   * pattern) kept once: repetition changes no answer, and a file of one rule 20,000 times
   * would otherwise be matched 20,000 times for every page and every browser request.
   */
  private rulesFor(token: string): Rule[] {
    let rules = this.applicable.get(token);
    if (rules) return rules;
    const named = this.groups.filter((g) => g.agents.includes(token));
    const groups = named.length > 0 ? named : this.groups.filter((g) => g.agents.includes("*"));
    const seen = new Set<string>();
    rules = [];
    for (const rule of groups.flatMap((g) => g.rules)) {
      const key = `${rule.allow ? "+" : "-"}${rule.pattern}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(rule);
    }
    this.applicable.set(token, rules);
    return rules;
  }
}

/** Lines parsed between two turns of the event loop (about 2 ms of parsing). */
const ROBOTS_SLICE_LINES = 2000;

function robotsLines(text: string): string[] {
  return text.slice(0, ROBOTS_MAX_BYTES).split(/\r\n|\r|\n/);
}

/** The parser's state between slices of lines: groups of user-agent lines and their rules. */
class RobotsParser {
  readonly groups: Group[] = [];
  private current: Group | undefined;
  private lastWasAgent = false;

  feed(lines: readonly string[], from: number, to: number): void {
    for (let i = from; i < Math.min(to, lines.length); i++) {
      const rawLine = lines[i]!;
      const hash = rawLine.indexOf("#");
      const line = (hash < 0 ? rawLine : rawLine.slice(0, hash)).trim();
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === "user-agent") {
        if (!this.current || !this.lastWasAgent) {
          this.current = { agents: [], rules: [] };
          this.groups.push(this.current);
        }
        this.current.agents.push(value.toLowerCase());
        this.lastWasAgent = true;
      } else if (key === "allow" || key === "disallow") {
        this.lastWasAgent = false;
        // An empty disallow means "nothing disallowed": no rule at all.
        if (!this.current || value === "") continue;
        this.current.rules.push({ allow: key === "allow", pattern: value, ...compilePattern(value) });
      } else {
        // sitemap, crawl-delay…: other records do not end a group's user-agent run per RFC,
        // but they are not rules either.
      }
    }
  }
}

function compilePattern(pattern: string): { parts: string[]; anchored: boolean } {
  const anchored = pattern.endsWith("$");
  return { parts: normalisePath(anchored ? pattern.slice(0, -1) : pattern).split("*"), anchored };
}

/**
 * Does a rule match a path? `*` is any run of characters, a trailing `$` anchors the end.
 * Matched without regular expressions: a pattern of many `*` (a hostile robots.txt) as a
 * RegExp backtracks exponentially; the greedy leftmost search below is linear in the path
 * per star, which is exact for `*` wildcards because each literal part may as well match
 * at its first occurrence after the previous one.
 */
function matches(rule: Pick<Rule, "parts" | "anchored">, path: string): boolean {
  const { parts, anchored } = rule;
  if (!path.startsWith(parts[0]!)) return false;
  if (parts.length === 1) return anchored ? path === parts[0] : true;
  let at = parts[0]!.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = path.indexOf(parts[i]!, at);
    if (found < 0) return false;
    at = found + parts[i]!.length;
  }
  const last = parts[parts.length - 1]!;
  if (!anchored) return path.indexOf(last, at) >= 0;
  return path.length - last.length >= at && path.endsWith(last);
}

/** Compare paths in one percent-encoding form: upper-case escapes, unreserved characters decoded. */
function normalisePath(path: string): string {
  if (!path.includes("%")) return path;
  return path.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** The product token of a User-Agent string: `outreach/0.1 (+…)` → `outreach`. */
export function productToken(userAgent: string): string {
  return (/^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? "*").toLowerCase();
}

/** One robots.txt answer, and whether it may be kept (a failure to reach the file is not). */
export interface RobotsAnswer {
  rules: RobotsRules;
  keep: boolean;
  /** Why the file could not be read (timeout, network, TLS), when it could not. */
  failure?: Error;
}

/**
 * robots.txt answers per origin, kept up to 24 h (RFC 9309 2.4) when they are answers
 * from the site; fetched once when requested concurrently. A load is tied to the signal of
 * the request that started it; when that request gives up first, the others load again.
 */
export class RobotsCache {
  private readonly entries = new Map<string, { answer: Promise<RobotsAnswer>; expiresAt: number }>();

  constructor(
    private readonly load: (origin: string, signal: AbortSignal) => Promise<RobotsAnswer>,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 24 * 3600_000,
  ) {}

  async rulesFor(origin: string, signal: AbortSignal): Promise<RobotsAnswer> {
    for (;;) {
      signal.throwIfAborted();
      let entry = this.entries.get(origin);
      if (!entry || entry.expiresAt <= this.now()) {
        const answer = this.load(origin, signal);
        const created = { answer, expiresAt: this.now() + this.ttlMs };
        entry = created;
        this.entries.set(origin, created);
        if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
        // Only answers from the site are kept; a failure or a cancelled load is forgotten once settled.
        answer.then(
          (a) => {
            if (!a.keep && this.entries.get(origin) === created) this.entries.delete(origin);
          },
          () => {
            if (this.entries.get(origin) === created) this.entries.delete(origin);
          },
        );
      }
      try {
        return await abortable(entry.answer, signal);
      } catch (err) {
        // Another request's cancelled load: ours is still wanted, load again.
        if (!signal.aborted && isAbort(err)) continue;
        throw err;
      }
    }
  }
}

function isAbort(err: unknown): boolean {
  const e = err as { name?: string; reason?: string } | undefined;
  return e?.name === "AbortError" || e?.name === "TimeoutError" || e?.reason === "aborted";
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
