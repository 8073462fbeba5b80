import ipaddr from "ipaddr.js";

/**
 * Which network addresses the website fetcher may connect to.
 *
 * An allow-list, not a block-list (the rule Bluesky's fetch-node uses): an address is
 * reachable when ipaddr.js classifies it as plain `unicast` (after mapping IPv4-mapped
 * IPv6 such as `::ffff:127.0.0.1` to its IPv4 form), or when it falls inside one of the
 * operator's `OUTREACH_FETCH_ALLOW` CIDRs. Every special range (loopback, private,
 * link-local incl. cloud metadata 169.254.169.254, CGNAT, multicast, documentation,
 * benchmarking, NAT64, 6to4, Teredo, unique-local…) is refused by default, including
 * ranges ipaddr.js learns about in future versions.
 */
export class AddressPolicy {
  private readonly allowed: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  constructor(allowCidrs: readonly string[] = []) {
    this.allowed = allowCidrs.map((cidr) => ipaddr.parseCIDR(cidr.includes("/") ? cidr : `${cidr}/${cidr.includes(":") ? 128 : 32}`));
  }

  /** True when a connection to this IP address (a literal, any standard form) is allowed. */
  isAllowed(address: string): boolean {
    const parsed = parseAddress(address);
    if (!parsed) return false;
    return this.isAllowListed(address) || parsed.range() === "unicast";
  }

  /** Inside an operator CIDR: such addresses may also be reached on ports other than 80/443. */
  isAllowListed(address: string): boolean {
    const parsed = parseAddress(address);
    if (!parsed) return false;
    return this.allowed.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range as never, bits));
  }

  /** The allow-list CIDRs were configured (tests, private deployments). */
  get hasAllowList(): boolean {
    return this.allowed.length > 0;
  }
}

/**
 * An IP literal in any form a URL parser or `inet_aton` accepts (dotted decimal, a
 * single decimal `2130706433`, hex `0x7f.1`, octal `017700000001`, IPv6 with or without
 * brackets), normalised so that IPv4-mapped IPv6 becomes IPv4. Undefined for host names.
 */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const host = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zoneless = host.replace(/%.*$/, "");
  if (ipaddr.IPv6.isValid(zoneless) && zoneless.includes(":")) {
    const v6 = ipaddr.IPv6.parse(zoneless);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  // ipaddr.js's IPv4.isValid accepts the inet_aton forms (hex, octal, fewer parts).
  if (/^[0-9a-fx.]+$/i.test(host) && ipaddr.IPv4.isValid(host)) return ipaddr.IPv4.parse(host);
  return undefined;
}

/** The canonical text of an IP literal host (`0x7f.1` → `127.0.0.1`), or undefined for names. */
export function canonicalIp(host: string): string | undefined {
  return parseAddress(host)?.toString();
}
