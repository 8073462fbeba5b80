import { disposableEmailBlocklistSet } from "disposable-email-domains-js";

let blocklist: Set<string> | undefined;

/**
 * Disposable (throwaway) mail domains, from the `disposable-email-domains-js` package: the
 * community list github.com/disposable-email-domains/disposable-email-domains (the one
 * PyPI's and many sign-up forms use), republished to npm by an automated job when the list
 * changes. Updating is `npm update disposable-email-domains-js`. A subdomain of a listed
 * domain counts too (`x.mailinator.com`). Loaded on first use (8,883 names in 1.26.0).
 */
export function isDisposableDomain(asciiDomain: string): boolean {
  blocklist ??= disposableEmailBlocklistSet();
  const labels = asciiDomain.toLowerCase().split(".");
  for (let i = 0; i < labels.length - 1; i++) if (blocklist.has(labels.slice(i).join("."))) return true;
  return false;
}
