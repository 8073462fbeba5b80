import { randomBytes } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { AddressPolicy } from "../web/address-policy.js";
import { HostGate } from "./host-gate.js";
import { SmtpSession, SmtpSessionError, type SmtpReply } from "./smtp-session.js";

export interface MailboxProbeOptions {
  /** `OUTREACH_HELO_NAME`: the name in EHLO (should resolve back to the probing host). */
  heloName: string;
  /** `OUTREACH_VERIFY_SMTP_PORT` (default 25). */
  port: number;
  timeoutMs: number;
  perDomainPerMinute: number;
  /** CIDRs of non-public MX addresses the probe may reach anyway (`OUTREACH_VERIFY_SMTP_ALLOW`; tests: 127.0.0.0/8). */
  allowCidrs: readonly string[];
  /** The MX host's addresses (A/AAAA) through the product's resolver. */
  addressesOf(host: string): Promise<string[]>;
  /** The injected clock (the per-domain window). */
  clock: Clock;
}

/** RCPTs per transaction: RFC 5321 §4.5.3.1.8 obliges servers to take at least 100. */
const RCPT_BATCH = 50;

/** What one domain's session answered. */
export type ProbeOutcome =
  | {
      kind: "answered";
      host: string;
      tls: string;
      /** Each address's RCPT reply; missing when the session ended before it was answered. */
      recipients: Map<string, SmtpReply>;
      /** The random address's reply (catch-all test); missing when the session ended first. */
      random: SmtpReply | undefined;
      /** Why the session ended early, if it did. */
      cutShort?: string;
    }
  | { kind: "greylisted"; host: string; reason: string; tls: string }
  | { kind: "unreachable"; reason: string };

/** A local part nobody has: 20 random lowercase letters and digits (as reacher's catch-all test). */
export function randomLocalPart(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(20), (b) => alphabet[b % alphabet.length]).join("");
}

function describe(reply: SmtpReply): string {
  return `${reply.code} ${reply.text.split("\n").pop()}`.trim().slice(0, 200);
}

/**
 * The SMTP mailbox probe (docs/api.md, "Address verification"): to the MX hosts in
 * preference order, EHLO, STARTTLS when offered, MAIL FROM the bounce address, RCPT TO each
 * address then one random address at the domain, QUIT. Never DATA. Many addresses of one
 * domain share one session (RSET between batches of RCPTs), so a domain costs connections
 * in proportion to its batches, not its addresses.
 */
export class MailboxProbe {
  private readonly policy: AddressPolicy;
  private readonly gate: HostGate;
  /** Connections opened (all domains), for the benchmark and tests. */
  connections = 0;

  constructor(private readonly options: MailboxProbeOptions) {
    this.policy = new AddressPolicy(options.allowCidrs);
    this.gate = new HostGate(options.perDomainPerMinute, () => options.clock.now().getTime(), (ms, signal) => options.clock.sleep(ms, signal));
  }

  async probe(domain: string, mxHosts: readonly string[], addresses: readonly string[], mailFrom: string, signal?: AbortSignal): Promise<ProbeOutcome> {
    const failures: string[] = [];
    for (const host of mxHosts) {
      let ips: string[];
      try {
        ips = await this.options.addressesOf(host);
      } catch (err) {
        failures.push(`${host}: ${(err as Error).message}`);
        continue;
      }
      const usable = ips.filter((ip) => this.policy.isAllowed(ip));
      if (usable.length === 0) {
        failures.push(ips.length ? `${host} resolves only to non-public addresses (${ips.join(", ")}), which are not probed` : `${host} has no address`);
        continue;
      }
      for (const ip of usable) {
        signal?.throwIfAborted();
        // Keyed by address: several MX names often point to one machine (a hosting provider's).
        const outcome = await this.gate.withConnection(ip, domain, () => this.session(domain, host, ip, addresses, mailFrom, signal), signal);
        if (outcome.kind !== "unreachable") return outcome;
        failures.push(outcome.reason);
      }
    }
    return { kind: "unreachable", reason: failures.length ? failures.join("; ") : `${domain} has no MX host to probe` };
  }

  private async session(domain: string, host: string, ip: string, addresses: readonly string[], mailFrom: string, signal?: AbortSignal): Promise<ProbeOutcome> {
    const { port, heloName, timeoutMs } = this.options;
    let opened: Awaited<ReturnType<typeof SmtpSession.open>>;
    this.connections++;
    try {
      opened = await SmtpSession.open({ address: ip, port, hostName: host, timeoutMs, signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      return { kind: "unreachable", reason: (err as Error).message };
    }
    const { session, greeting } = opened;
    const recipients = new Map<string, SmtpReply>();
    let random: SmtpReply | undefined;
    try {
      if (greeting.code !== 220) return { kind: "unreachable", reason: `${host} refused the session: ${describe(greeting)}` };
      let hello = await session.hello(heloName);
      if (hello.code !== 250) return { kind: "unreachable", reason: `${host} refused EHLO/HELO: ${describe(hello)}` };
      if (session.extensions.has("STARTTLS")) {
        const started = await session.startTls();
        if (started.code === 220) {
          hello = await session.hello(heloName);
          if (hello.code !== 250) return { kind: "unreachable", reason: `${host} refused EHLO after STARTTLS: ${describe(hello)}` };
        }
      }
      const randomAddress = `${randomLocalPart()}@${domain}`;
      for (let i = 0; i < addresses.length; i += RCPT_BATCH) {
        if (i > 0) await session.command("RSET");
        const from = await session.command(`MAIL FROM:<${mailFrom}>`);
        if (from.code >= 400 && from.code < 500) return { kind: "greylisted", host, reason: `${host} deferred MAIL FROM: ${describe(from)}`, tls: session.tls };
        if (from.code !== 250) return { kind: "unreachable", reason: `${host} refused our sender ${mailFrom}: ${describe(from)}` };
        const batch = addresses.slice(i, i + RCPT_BATCH);
        // The random address once per session, right after the first real one (the
        // contract's "the address, then a random address"): its answer comes early, before a
        // server that hangs up after a number of rejections (Postfix's smtpd_hard_error_limit) does.
        const order: Array<string | null> = [...batch];
        if (i === 0) order.splice(1, 0, null);
        await session.commands(
          order.map((a) => `RCPT TO:<${a ?? randomAddress}>`),
          (k, reply) => {
            const address = order[k];
            if (address === null) random = reply;
            else recipients.set(address!, reply);
          },
        );
      }
      await session.quit();
      return { kind: "answered", host, tls: session.tls, recipients, random };
    } catch (err) {
      session.close();
      if (signal?.aborted) throw signal.reason;
      if (!(err instanceof SmtpSessionError)) throw err;
      // Nothing answered: the host did not take part; what was answered stays answered.
      if (recipients.size === 0 && random === undefined) {
        return { kind: "unreachable", reason: err.message };
      }
      return { kind: "answered", host, tls: session.tls, recipients, random, cutShort: err.message };
    } finally {
      session.close();
    }
  }
}
