import type { Keyring } from "./crypto.js";

/**
 * Blind indexes over emails (CipherSweet's design): keyed HMACs that let SQL find equal
 * values and substring candidates without the email in clear. Both are scoped to the
 * workspace (its id is part of the HMAC input), so the same email or trigram in two
 * workspaces gives unrelated values, and keyed by the master key the row was written
 * with (`key_id`), so a key rotation re-derives them with the ciphertexts.
 */

export const EMAIL_BIDX_PURPOSE = "contact-email-bidx";
export const EMAIL_GRAM_PURPOSE = "contact-email-gram";
/** The smallest n of the n-gram index: the shortest substring the index can answer. */
export const GRAM_SIZE = 3;
/**
 * The largest n indexed. Every 3-, 4- and 5-gram of an email is stored, so a query of 3 to
 * 5 characters is answered by its own gram's posting list, exactly, without decrypting;
 * longer ones intersect their 5-grams (rarer than trigrams) and confirm by decrypting.
 * Larger n would add rows for every contact to speed up queries that are already rare.
 */
export const MAX_GRAM_SIZE = 5;
/**
 * Hex characters kept of each gram HMAC: 64 bits. Enough that two different grams of
 * one workspace practically never share a value (≈ 2^-64 per pair), so a 3–5 character
 * query is answered by its one gram without decrypting; truncating further would not hide
 * gram frequencies (equal grams still give equal values) and would only add false
 * positives to confirm.
 */
export const GRAM_HEX = 16;

/** Lower-cased and trimmed; NFC so composed and decomposed forms compare equal. */
export function normaliseEmail(email: string): string {
  return email.trim().normalize("NFC").toLowerCase();
}

/** The distinct n-grams of a normalised string, by code point. */
export function gramsOf(normalised: string, n = GRAM_SIZE): string[] {
  if (!/[\uD800-\uDFFF]/.test(normalised)) {
    // No surrogate pair (nearly every email): code units are code points.
    const out = new Set<string>();
    for (let i = 0; i + n <= normalised.length; i++) out.add(normalised.substring(i, i + n));
    return [...out];
  }
  const chars = [...normalised];
  const out = new Set<string>();
  for (let i = 0; i + n <= chars.length; i++) out.add(chars.slice(i, i + n).join(""));
  return [...out];
}

export function emailBlindIndex(keyring: Keyring, teamId: string, email: string, keyId?: string): string {
  return keyring.hmac(EMAIL_BIDX_PURPOSE, `${teamId}\0${normaliseEmail(email)}`, keyId);
}

/**
 * An email's blind index under each loaded master key: while a rotation runs, a row is
 * under the old key or the new one, so a lookup asks for both.
 */
export function emailBlindIndexesUnderEveryKey(keyring: Keyring, teamId: string, email: string): string[] {
  return keyring.keyIds.map((keyId) => emailBlindIndex(keyring, teamId, email, keyId));
}

export function gramHash(keyring: Keyring, teamId: string, gram: string, keyId?: string): string {
  return keyring.hmac(EMAIL_GRAM_PURPOSE, `${teamId}\0${gram}`, keyId).slice(0, GRAM_HEX);
}

/**
 * Gram hashes already computed, by master key id, workspace and gram: the HMACs were most
 * of an import's CPU, and a workspace's emails repeat most of their grams (providers,
 * domains, role names, common first names). In memory only, bounded, in a process that
 * holds the keys anyway. A key id names one key's content, so entries stay right when the
 * keyring is replaced.
 */
export class GramHashCache {
  /** Per key id and workspace, gram → hash: short keys for the lookups of every gram. */
  private readonly scopes = new Map<string, Map<string, string>>();
  private size = 0;

  constructor(private readonly capacity = 200_000) {}

  /** The hash function of one key and workspace (looked up once for all of an email's grams). */
  hasher(keyring: Keyring, teamId: string, keyId = keyring.currentId): (gram: string) => string {
    const scopeId = `${keyId}\0${teamId}`;
    let scope = this.scopes.get(scopeId);
    if (!scope) this.scopes.set(scopeId, (scope = new Map()));
    const entries = scope;
    return (gram) => {
      let hash = entries.get(gram);
      if (hash === undefined) {
        hash = gramHash(keyring, teamId, gram, keyId);
        // Dropping everything at the cap is simpler than an LRU and costs one refill.
        if (this.size >= this.capacity) {
          for (const other of this.scopes.values()) other.clear();
          this.size = 0;
        }
        entries.set(gram, hash);
        this.size++;
      }
      return hash;
    };
  }
}

/**
 * The blind grams stored for an email: its 3- to `maxN`-grams. Grams of different lengths
 * are different HMAC inputs, so one hash space holds them all.
 */
export function emailGramHashes(
  keyring: Keyring,
  teamId: string,
  email: string,
  keyId?: string,
  maxN = MAX_GRAM_SIZE,
  minN = GRAM_SIZE,
  cache?: GramHashCache,
): string[] {
  const normalised = normaliseEmail(email);
  const hash = cache ? cache.hasher(keyring, teamId, keyId) : (gram: string) => gramHash(keyring, teamId, gram, keyId);
  const out = new Set<string>();
  for (let n = minN; n <= maxN; n++) for (const g of gramsOf(normalised, n)) out.add(hash(g));
  return [...out];
}
