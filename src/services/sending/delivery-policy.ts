import type { Keyring } from "../../core/crypto.js";

/**
 * The numbers of the delivery policy (docs/api.md, "Delivery"), apart from the loop that
 * applies them.
 */

/** A message the relay keeps deferring (4xx) is given up after this long since its first attempt. */
export const RETRY_WINDOW_MS = 24 * 60 * 60_000;

/** After the n-th attempt failed temporarily: 1 min, 2, 4 … doubling, at most 6 h. */
export function retryDelayMs(attempt: number): number {
  return Math.min(60_000 * 2 ** Math.max(0, attempt - 1), 6 * 60 * 60_000);
}

/** The domain of an address, lower-cased (IDNs as they are stored: contacts' emails are ASCII or UTF-8 as given). */
export function recipientDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

/**
 * The per-recipient-domain throttle counts attempts by a keyed hash of the domain, not the
 * domain: contacts' emails are encrypted at rest, and a small business's own domain names
 * it as well as its address does. A key rotation changes the hash, which only restarts
 * the one-minute windows.
 */
export function recipientDomainKey(keyring: Keyring, email: string): string {
  return keyring.hmac("recipient-domain", recipientDomain(email)).slice(0, 16);
}
