import type { MailDomainLookup } from "../../providers/dns/resolver.js";

/** Where a domain's mail goes, or why it goes nowhere, or that DNS could not say. */
export type MailHosts =
  | { kind: "hosts"; hosts: string[]; implicit: boolean }
  | { kind: "none"; reason: string }
  | { kind: "temporary"; reason: string };

const CACHE_MAX = 10_000;

/**
 * RFC 5321 §5.1: the MX hosts in preference order (lowest first), or the domain itself
 * (the implicit MX) when it has no MX but an A/AAAA record. Nowhere: NXDOMAIN, the null MX
 * of RFC 7505, or neither MX nor address. A timeout or SERVFAIL is `temporary`: it never
 * makes an address undeliverable. Answers are kept for one verification run (bounded), and
 * concurrent questions about one domain share one lookup.
 */
export class MailHostResolver {
  private readonly answers = new Map<string, Promise<MailHosts>>();

  constructor(private readonly lookup: MailDomainLookup) {}

  resolve(domain: string): Promise<MailHosts> {
    let answer = this.answers.get(domain);
    if (!answer) {
      if (this.answers.size >= CACHE_MAX) this.answers.delete(this.answers.keys().next().value!);
      answer = this.ask(domain);
      this.answers.set(domain, answer);
    }
    return answer;
  }

  private ask(domain: string): Promise<MailHosts> {
    return mailHostsOf(this.lookup, domain);
  }
}

/** One domain's mail hosts, asked now (no cache): the rules above, shared with the found-email check (`email-domains.ts`). */
export async function mailHostsOf(lookup: MailDomainLookup, domain: string): Promise<MailHosts> {
  const mx = await lookup.mx(domain);
  if (mx.kind === "found") {
    const real = mx.records.filter((r) => r.exchange !== "" && r.exchange !== ".");
    if (real.length === 0) return { kind: "none", reason: `${domain} declares that it accepts no mail (null MX, RFC 7505)` };
    const hosts = [...real].sort((a, b) => a.priority - b.priority).map((r) => r.exchange);
    return { kind: "hosts", hosts: [...new Set(hosts)], implicit: false };
  }
  if (mx.kind === "temporary") return { kind: "temporary", reason: `DNS did not answer: ${mx.reason}` };
  if (mx.nxdomain) return { kind: "none", reason: `${domain} does not exist (NXDOMAIN)` };
  const addresses = await lookup.addresses(domain);
  if (addresses.kind === "found") return { kind: "hosts", hosts: [domain], implicit: true };
  if (addresses.kind === "temporary") return { kind: "temporary", reason: `DNS did not answer: ${addresses.reason}` };
  return { kind: "none", reason: `${domain} has no MX, A or AAAA record` };
}
