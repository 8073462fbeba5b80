import { domainToASCII } from "node:url";
import type { MailDomainLookup } from "../../providers/dns/resolver.js";
import { mailHostsOf } from "../contacts/mail-hosts.js";

/** Can mail be delivered to a domain? `unknown` when DNS could not say (it never counts against an address). */
export type MailVerdict = { kind: "yes" } | { kind: "no"; reason: string } | { kind: "unknown" };

const CACHE_MAX = 20_000;

/**
 * RFC 5321 §5.1 for found addresses: a domain receives mail through its MX records, or,
 * with none, through its own A/AAAA address (the implicit MX). A domain certainly cannot
 * receive mail when it does not exist (NXDOMAIN), when its only MX is the null MX of
 * RFC 7505, or when it has neither MX nor address records. A timeout, SERVFAIL or an
 * unreachable resolver says nothing: the address is kept.
 *
 * Verdicts are cached per domain (definite ones for `ttlMs`, unknown ones not at all) and
 * concurrent questions about one domain share one lookup.
 */
export class EmailDomainCheck {
  private readonly cache = new Map<string, { verdict: MailVerdict; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<MailVerdict>>();

  constructor(
    private readonly lookup: MailDomainLookup,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 6 * 3600_000,
  ) {}

  async verdict(domain: string): Promise<MailVerdict> {
    const ascii = domainToASCII(domain.toLowerCase()) || domain.toLowerCase();
    const hit = this.cache.get(ascii);
    if (hit && hit.expiresAt > this.now()) return hit.verdict;
    let pending = this.inFlight.get(ascii);
    if (!pending) {
      pending = this.ask(ascii).finally(() => this.inFlight.delete(ascii));
      this.inFlight.set(ascii, pending);
    }
    const verdict = await pending;
    if (verdict.kind !== "unknown") {
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(ascii, { verdict, expiresAt: this.now() + this.ttlMs });
    }
    return verdict;
  }

  private async ask(domain: string): Promise<MailVerdict> {
    const hosts = await mailHostsOf(this.lookup, domain);
    if (hosts.kind === "hosts") return { kind: "yes" };
    return hosts.kind === "none" ? { kind: "no", reason: hosts.reason } : { kind: "unknown" };
  }
}
