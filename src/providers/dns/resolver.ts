import { Resolver } from "node:dns/promises";

/**
 * What one DNS question came back with, in the three outcomes verification cares about:
 * records, a definite "nothing there" (NXDOMAIN or no data of that type), or a failure
 * that says nothing about the zone (timeout, SERVFAIL, refused, unreachable server),
 * which must never count against a record.
 */
export type DnsAnswer<T> =
  | { kind: "found"; records: T[] }
  | { kind: "missing"; reason: string; /** The name does not exist at all (NXDOMAIN), rather than lacking this type. */ nxdomain?: boolean }
  | { kind: "temporary"; reason: string };

export interface DnsLookup {
  /** TXT records, each one's character-strings joined (DNS splits values over 255 bytes). */
  txt(host: string): Promise<DnsAnswer<string>>;
  /** CNAME targets, lower-cased, without the trailing dot. */
  cname(host: string): Promise<DnsAnswer<string>>;
}

/** The questions that decide whether a domain can receive mail (RFC 5321 §5.1). */
export interface MailDomainLookup {
  /** MX records; a null MX (RFC 7505: one record, exchange ".") comes back as exchange "". */
  mx(host: string): Promise<DnsAnswer<{ exchange: string; priority: number }>>;
  /** A and AAAA addresses together: found if either has records, missing only if both are definitely absent. */
  addresses(host: string): Promise<DnsAnswer<string>>;
}

export interface DnsResolverOptions {
  /** `host[:port]` servers; empty: the system's resolvers. */
  servers: readonly string[];
  /** Per-try timeout in milliseconds. */
  timeoutMs: number;
  tries: number;
}

// ENOTFOUND is NXDOMAIN, ENODATA an existing name without that record type: both are
// definite answers from the zone. Everything else (ETIMEOUT, ESERVFAIL, ECONNREFUSED,
// EREFUSED, EBADRESP…) is about the path to the zone, not its content.
const MISSING_CODES = new Set(["ENOTFOUND", "ENODATA"]);

function describe(code: string | undefined, host: string): string {
  switch (code) {
    case "ENOTFOUND":
      return `${host} does not exist (NXDOMAIN)`;
    case "ENODATA":
      return `${host} has no record of that type`;
    case "ETIMEOUT":
      return `the DNS server did not answer for ${host} in time`;
    case "ESERVFAIL":
      return `the DNS server failed (SERVFAIL) for ${host}`;
    case "ECONNREFUSED":
      return `the DNS server refused the connection for ${host}`;
    case "EREFUSED":
      return `the DNS server refused the query for ${host}`;
    default:
      return `DNS lookup of ${host} failed (${code ?? "unknown error"})`;
  }
}

/** node:dns with the operator's servers, timeout and tries (OUTREACH_DNS_SERVERS…). */
export class NodeDnsLookup implements DnsLookup, MailDomainLookup {
  private readonly resolver: Resolver;

  constructor(options: DnsResolverOptions) {
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
    if (options.servers.length) this.resolver.setServers([...options.servers]);
  }

  async txt(host: string): Promise<DnsAnswer<string>> {
    return this.ask(host, async () => (await this.resolver.resolveTxt(host)).map((chunks) => chunks.join("")));
  }

  async cname(host: string): Promise<DnsAnswer<string>> {
    return this.ask(host, async () => (await this.resolver.resolveCname(host)).map((t) => t.toLowerCase().replace(/\.$/, "")));
  }

  async mx(host: string): Promise<DnsAnswer<{ exchange: string; priority: number }>> {
    return this.ask(host, async () => (await this.resolver.resolveMx(host)).map((r) => ({ exchange: r.exchange.replace(/\.$/, "").toLowerCase(), priority: r.priority })));
  }

  async addresses(host: string): Promise<DnsAnswer<string>> {
    const [a, aaaa] = await Promise.all([this.ask(host, () => this.resolver.resolve4(host)), this.ask(host, () => this.resolver.resolve6(host))]);
    if (a.kind === "found" || aaaa.kind === "found") return { kind: "found", records: [...(a.kind === "found" ? a.records : []), ...(aaaa.kind === "found" ? aaaa.records : [])] };
    if (a.kind === "temporary") return a;
    if (aaaa.kind === "temporary") return aaaa;
    return a;
  }

  private async ask<T>(host: string, query: () => Promise<T[]>): Promise<DnsAnswer<T>> {
    try {
      const records = await query();
      return records.length ? { kind: "found", records } : { kind: "missing", reason: describe("ENODATA", host) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code && MISSING_CODES.has(code)) return { kind: "missing", reason: describe(code, host), nxdomain: code === "ENOTFOUND" };
      return { kind: "temporary", reason: describe(code, host) };
    }
  }

  /** Stop queries still in flight (server shutdown). */
  cancel(): void {
    this.resolver.cancel();
  }
}
