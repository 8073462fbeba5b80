import ipaddr from "ipaddr.js";
import { AppError } from "../core/errors.js";
import type { Clock } from "../core/clock.js";
import { RateLimiter } from "../services/access/rate-limit.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parse(text: string | undefined): Address | undefined {
  const trimmed = text?.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!trimmed || !ipaddr.isValid(trimmed)) return undefined;
  // ::ffff:192.0.2.1 is the IPv4 client of a dual-stack socket.
  return ipaddr.process(trimmed);
}

/**
 * Failed authentications per client address (issue: token guessing was free). Only
 * failures count: a client whose token works is never slowed down. Once an address has
 * failed `limit` times in a burst (then more than `limit` a minute), every request from it
 * that needs a token is answered 429 with `Retry-After` before the token is even looked
 * at, valid or not: answering a right guess with 200 while wrong ones get 429 would keep
 * the guessing going at full speed. Other addresses are untouched, so one address cannot
 * lock out anyone else's valid tokens.
 *
 * The address is the socket's peer; behind a reverse proxy listed in
 * `OUTREACH_TRUSTED_PROXIES` it is the right-most `X-Forwarded-For` entry that is not one
 * of those proxies (entries further left are whatever the client chose to send). IPv6
 * clients count per /64, the block one host usually holds. Requests made in-process (the
 * CLI's local mode) have no address and are not counted.
 */
export class AuthThrottle {
  private readonly failures: RateLimiter;
  private readonly proxies: Array<[Address, number]>;

  constructor(limitPerMinute: number, clock: Clock, trustedProxies: readonly string[]) {
    this.failures = new RateLimiter({ limitPerMinute, clock });
    this.proxies = trustedProxies.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** The key failures of this request count against, or undefined when it has no address (or the limit is off). */
  clientOf(request: Request): string | undefined {
    if (!this.failures.enabled) return undefined;
    let client = parse((request as Request & { ip?: string }).ip);
    if (client && this.isProxy(client)) {
      const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map(parse);
      for (let i = hops.length - 1; i >= 0; i--) {
        const hop = hops[i];
        if (!hop) break; // a malformed entry: trust nothing left of it
        client = hop;
        if (!this.isProxy(hop)) break;
      }
    }
    if (!client) return undefined;
    if (client.kind() === "ipv6") return `${(client as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(":")}::/64`;
    return client.toString();
  }

  /** 429 when `client` has failed too often lately. */
  assertAllowed(client: string | undefined): void {
    if (!client) return;
    const decision = this.failures.peek(client);
    if (decision.allowed) return;
    throw new AppError("rate_limited", `too many failed authentications from this address; retry in ${decision.retryAfterSeconds} s`, {
      headers: { "retry-after": String(decision.retryAfterSeconds) },
    });
  }

  recordFailure(client: string | undefined): void {
    if (client) this.failures.take(client);
  }

  private isProxy(address: Address): boolean {
    return this.proxies.some(([range, bits]) => range.kind() === address.kind() && address.match(range as never, bits));
  }
}
