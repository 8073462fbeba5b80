import { gramHash, gramsOf, GRAM_SIZE, MAX_GRAM_SIZE, normaliseEmail } from "../../core/blind-index.js";
import type { Keyring } from "../../core/crypto.js";
import { badRequest } from "../../core/errors.js";
import type { ContactFilter, ContactRow, ContactsRepo } from "../../store/contacts.js";
import type { GramLayout } from "../../store/contact-gram-postings.js";
import type { ContactCipher } from "./contacts-encryption.js";

/**
 * Below the index's gram size a substring cannot use it: such queries decrypt and scan
 * the (filtered) workspace, but only up to this many contacts, beyond which they are a
 * 400 asking for a longer search.
 */
export const SHORT_SEARCH_SCAN_CAP = 5000;
/** Normalised emails kept in memory to confirm search candidates (≈ 25 MB at most). */
const EMAIL_CACHE_ENTRIES = 200_000;
/** The posting count given to grams not counted (one rare enough was found first). */
const GRAM_RANK_CAP = 2000;
/** A gram with fewer postings than this drives the intersection without ranking the rest. */
const RARE_ENOUGH = 64;

export interface ContactSearchDeps {
  repo: ContactsRepo;
  cipher: ContactCipher;
  keys: { get(): Keyring };
  /** At most this many contacts are scanned for a search shorter than the index's grams (default SHORT_SEARCH_SCAN_CAP). */
  shortSearchScanCap?: number;
}

/**
 * The contact list's `search`: a case-insensitive substring of the email, through the
 * blind 3/4/5-gram index (docs/api.md, "Contacts"). A 3–5 character query is its own gram
 * and its posting list is the answer; a longer one intersects its grams from the rarest and
 * confirms the candidates by decrypting their email; a shorter one scans a small workspace.
 */
export class ContactSearch {
  private readonly emailCache = new Map<string, { ct: string; email: string }>();
  private readonly shortSearchScanCap: number;

  constructor(private readonly deps: ContactSearchDeps) {
    this.shortSearchScanCap = deps.shortSearchScanCap ?? SHORT_SEARCH_SCAN_CAP;
  }

  /** One page of the contacts matching `search` and the filter, newest first, and how many match in all. */
  page(filter: ContactFilter, search: string, limit: number, offset: number): { total: number; rows: ContactRow[] } {
    const exact = this.exactGramPage(filter, normaliseEmail(search), limit, offset);
    if (exact) return exact;
    const matched = this.matchingIds(filter, search);
    const ids = matched.slice(offset, offset + limit);
    return { total: matched.length, rows: ids.length ? this.deps.repo.page({ teamId: filter.teamId, ids }, limit, 0) : [] };
  }

  /** Ids of the contacts whose email contains `search` (case-insensitive), newest first. */
  private matchingIds(filter: ContactFilter, search: string): string[] {
    const needle = normaliseEmail(search);
    // The longest grams the whole workspace has: rarer, so fewer candidates to confirm.
    const grams = gramsOf(needle, this.indexedGramSize(filter.teamId));
    if (grams.length === 0) return this.scanMatchingIds(filter, needle, this.shortSearchScanCap);
    const keyring = this.deps.keys.get();
    const out: Array<{ id: string; created_at: string }> = [];
    // Rows are indexed under the key they were written with: one pass per key id in use.
    for (const keyId of this.keyIdsInUse(filter.teamId)) {
      const hashes = [...new Set(grams.map((g) => gramHash(keyring, filter.teamId, g, keyId)))];
      // Drive the intersection from the rarest gram: the others are index probes per candidate.
      const layout = this.deps.repo.gramLayout(filter.teamId);
      // Ranked by their packed blocks alone: the tail (a few recent runs, read once per run
      // and gram) changes little in the order, and only the rarest's zero is confirmed.
      const ranked = this.rankGrams(filter.teamId, hashes, { ...layout, runs: [] });
      if (ranked[0]!.n === 0 && this.deps.repo.gramFrequency(filter.teamId, ranked[0]!.h, layout) === 0) continue;
      const candidates = this.deps.repo.candidates(filter, ranked.map((r) => r.h), keyId, layout);
      for (const c of candidates) {
        if (this.candidateEmail(c, filter.teamId).includes(needle)) out.push(c);
      }
    }
    return sortNewestFirst(out).map((c) => c.id);
  }

  /**
   * The normalised email of a search candidate. Confirming candidates is the search's cost
   * (one AES-GCM decryption each), so the process keeps recent ones in memory, keyed by
   * contact id and checked against the ciphertext it came from: an update or a rotation
   * changes the ciphertext and so invalidates the entry. Memory only, never written; the
   * process holds the key anyway (docs/security.md).
   */
  private candidateEmail(row: { id: string; email_ct: string }, teamId: string): string {
    const cached = this.emailCache.get(row.id);
    if (cached && cached.ct === row.email_ct) return cached.email;
    const email = normaliseEmail(this.deps.cipher.decryptEmail(row, teamId));
    if (this.emailCache.size >= EMAIL_CACHE_ENTRIES) {
      // Drop the oldest eighth at once rather than one per insert.
      let drop = EMAIL_CACHE_ENTRIES >> 3;
      for (const key of this.emailCache.keys()) {
        this.emailCache.delete(key);
        if (--drop === 0) break;
      }
    }
    this.emailCache.set(row.id, { ct: row.email_ct, email });
    return email;
  }

  /**
   * The loaded keys the workspace's rows may be under: normally one, and then no query;
   * during a rotation, those of the loaded keys that some row still uses. (A row under a
   * key that is not loaded cannot be decrypted anyway; reading it says so.)
   */
  private keyIdsInUse(teamId: string): string[] {
    const ids = this.deps.keys.get().keyIds;
    return ids.length === 1 ? ids : ids.filter((id) => this.deps.repo.usesKey(teamId, id));
  }

  /**
   * The largest n whose grams every contact of the workspace has: MAX_GRAM_SIZE, or only
   * the trigrams while contacts written before the 4/5-gram index await the backfill.
   */
  private indexedGramSize(teamId: string): number {
    return this.deps.repo.hasNgramBackfill(teamId) ? GRAM_SIZE : MAX_GRAM_SIZE;
  }

  /**
   * A search of GRAM_SIZE to MAX_GRAM_SIZE characters is one indexed gram: the contacts whose
   * normalised email has that n-gram are exactly those containing the query (64-bit keyed
   * hashes, so a false match needs a collision, ≈ 2^-64 per pair of grams), so the posting
   * list is the answer: `total` is its length and the page its newest entries, with no
   * decryption at all. Undefined for other lengths (and for 4–5 characters while the
   * workspace's backfill is pending): those intersect and confirm.
   */
  private exactGramPage(filter: ContactFilter, needle: string, limit: number, offset: number): undefined | { total: number; rows: ContactRow[] } {
    const length = [...needle].length;
    if (length < GRAM_SIZE || length > this.indexedGramSize(filter.teamId)) return undefined;
    const keyring = this.deps.keys.get();
    // Rows are indexed under the key they were written with: the gram under each key in use.
    const grams = this.keyIdsInUse(filter.teamId).map((keyId) => gramHash(keyring, filter.teamId, needle, keyId));
    if (grams.length === 0) return { total: 0, rows: [] };
    return this.deps.repo.exactGramPage(filter, grams, limit, offset);
  }

  /**
   * Grams by posting count (a sum over their blocks), rarest first. A long query has many grams: once one is
   * rare enough to drive the intersection cheaply, the others are not counted.
   */
  private rankGrams(teamId: string, hashes: string[], layout: GramLayout): Array<{ h: string; n: number }> {
    const ranked: Array<{ h: string; n: number }> = [];
    for (const [i, h] of hashes.entries()) {
      const n = this.deps.repo.gramFrequency(teamId, h, layout);
      ranked.push({ h, n });
      if (n < RARE_ENOUGH) {
        ranked.push(...hashes.slice(i + 1).map((rest) => ({ h: rest, n: GRAM_RANK_CAP })));
        break;
      }
    }
    return ranked.sort((a, b) => a.n - b.n);
  }

  /** Decrypt-and-scan, for queries shorter than a gram (and bench/contacts.js's baseline): the filtered workspace, up to `cap` contacts. */
  scanMatchingIds(filter: ContactFilter, needle: string, cap = Infinity): string[] {
    const rows = this.deps.repo.emailCiphertexts(filter);
    if (rows.length > cap) {
      throw badRequest(`query.search must be at least ${GRAM_SIZE} characters long in a workspace with more than ${cap} contacts`);
    }
    const normalised = normaliseEmail(needle);
    const out = rows.filter((r) => normaliseEmail(this.deps.cipher.decryptEmail(r, filter.teamId)).includes(normalised));
    return sortNewestFirst(out).map((c) => c.id);
  }
}

function sortNewestFirst<T extends { id: string; created_at: string }>(rows: T[]): T[] {
  return rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
