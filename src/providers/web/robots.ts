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
  regexp: RegExp;
}

interface Group {
  agents: string[];
  rules: Rule[];
}

export class RobotsRules {
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
    const groups: Group[] = [];
    let current: Group | undefined;
    let lastWasAgent = false;
    for (const rawLine of text.slice(0, ROBOTS_MAX_BYTES).split(/\r\n|\r|\n/)) {
      const line = rawLine.replace(/#.*$/, "").trim();
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === "user-agent") {
        if (!current || !lastWasAgent) {
          current = { agents: [], rules: [] };
          groups.push(current);
        }
        current.agents.push(value.toLowerCase());
        lastWasAgent = true;
      } else if (key === "allow" || key === "disallow") {
        lastWasAgent = false;
        // An empty disallow means "nothing disallowed": no rule at all.
        if (!current || value === "") continue;
        current.rules.push({ allow: key === "allow", pattern: value, regexp: patternToRegExp(value) });
      } else {
        // sitemap, crawl-delay…: other records do not end a group's user-agent run per RFC,
        // but they are not rules either.
      }
    }
    return new RobotsRules(groups);
  }

  /** May a crawler with this product token (e.g. `outreach`) fetch this path (+ query)? */
  isAllowed(productToken: string, pathAndQuery: string): boolean {
    if (this.fallback) return this.fallback === "allow-all";
    if (pathAndQuery === "/robots.txt") return true;
    const token = productToken.toLowerCase();
    let rules = this.groups.filter((g) => g.agents.includes(token)).flatMap((g) => g.rules);
    if (!this.groups.some((g) => g.agents.includes(token))) rules = this.groups.filter((g) => g.agents.includes("*")).flatMap((g) => g.rules);
    const path = normalisePath(pathAndQuery);
    let best: Rule | undefined;
    for (const rule of rules) {
      if (!rule.regexp.test(path)) continue;
      if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
    }
    return best ? best.allow : true;
  }
}

function patternToRegExp(pattern: string): RegExp {
  const anchored = pattern.endsWith("$");
  const body = normalisePath(anchored ? pattern.slice(0, -1) : pattern)
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}${anchored ? "$" : ""}`);
}

/** Compare paths in one percent-encoding form: upper-case escapes, unreserved characters decoded. */
function normalisePath(path: string): string {
  return path.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** The product token of a User-Agent string: `outreach/0.1 (+…)` → `outreach`. */
export function productToken(userAgent: string): string {
  return (/^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? "*").toLowerCase();
}

/** robots.txt answers per origin, kept up to 24 h (RFC 9309 2.4), fetched once when requested concurrently. */
export class RobotsCache {
  private readonly entries = new Map<string, { rules: Promise<RobotsRules>; expiresAt: number }>();

  constructor(
    private readonly load: (origin: string) => Promise<RobotsRules>,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 24 * 3600_000,
  ) {}

  rulesFor(origin: string): Promise<RobotsRules> {
    const hit = this.entries.get(origin);
    if (hit && hit.expiresAt > this.now()) return hit.rules;
    const rules = this.load(origin);
    this.entries.set(origin, { rules, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    return rules;
  }
}
