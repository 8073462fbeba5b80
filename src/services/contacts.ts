import { emailBlindIndex, emailGramHashes, gramHash, gramsOf, GRAM_SIZE, MAX_GRAM_SIZE, normaliseEmail } from "../core/blind-index.js";
import type { Clock } from "../core/clock.js";
import { KeyringError, type Keyring } from "../core/crypto.js";
import { AppError, badRequest, conflict, notFound } from "../core/errors.js";
import { newId } from "../core/ids.js";
import {
  CONTACT_LIMITS,
  ContactInput,
  type Contact,
  type ContactImportOutcome,
  type ContactImportResponse,
  type ContactList,
  type ContactListQuery,
  type ContactUpdate,
} from "../core/schemas/contact.js";
import { describeZodError } from "../core/validation.js";
import { ContactsRepo, type ContactFilter, type ContactRow, type ContactWrite } from "../store/contacts.js";
import type { Db } from "../store/db.js";
import { TeamsRepo } from "../store/teams.js";
import type { KeyringSource } from "./keyring-source.js";
import type { PlanService } from "./plans.js";

/** The encrypted columns of a contact and the field each holds. */
export const CONTACT_ENCRYPTED_FIELDS = { email_ct: "email", name_ct: "name", phone_ct: "phone" } as const;

/** Associated data of a contact field: a ciphertext moved to another workspace, row or column fails. */
export function contactAad(teamId: string, contactId: string, field: string): string {
  return `contacts/${teamId}/${contactId}/${field}`;
}

/**
 * Below the index's gram size a substring cannot use it: such queries decrypt and scan
 * the (filtered) workspace, but only up to this many contacts, beyond which they are a
 * 400 asking for a longer search.
 */
export const SHORT_SEARCH_SCAN_CAP = 5000;
/** Normalised emails kept in memory to confirm search candidates (≈ 25 MB at most). */
const EMAIL_CACHE_ENTRIES = 200_000;
/** An import's transactions last this long while other requests are waiting (bench/load.js)... */
const IMPORT_SLICE_MS = 8;
/** ...and up to this long while none are. */
const IMPORT_SLICE_MAX_MS = 64;
/** Capped posting count used to order grams rarest first (cheap, and enough to rank). */
const GRAM_RANK_CAP = 2000;
/** A gram with fewer postings than this drives the intersection without ranking the rest. */
const RARE_ENOUGH = 64;

export interface ContactLimitState {
  count: number;
  max: number | null;
}

interface Plain {
  email: string;
  name: string;
  phone: string | null;
  description: string | null;
  status: "active" | "unsubscribed";
  tags: string[];
}

/**
 * Contacts of a workspace: endpoints 9–13 and the import. Email, name and phone are
 * encrypted per field (AES-256-GCM, AAD = workspace/contact/field); uniqueness and exact
 * lookups use a blind index, substring search a blind 3/4/5-gram index (a 3–5 character
 * query is its own gram, exact; longer ones confirm their candidates by decrypting).
 */
/** An import in progress (addMany): what it was given and what it has answered so far. */
interface ImportBatch {
  teamId: string;
  items: readonly unknown[];
  extraTags: readonly string[];
  /** Creation time of item 0; item i gets base + i ms. */
  base: number;
  /** Normalised emails written by this batch (a later duplicate in the batch is reported). */
  seen: Set<string>;
  results: ContactImportOutcome[];
}

export class ContactService {
  readonly repo: ContactsRepo;
  private readonly teams: TeamsRepo;
  private readonly emailCache = new Map<string, { ct: string; email: string }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly keys: KeyringSource,
    private readonly plans: PlanService,
  ) {
    this.repo = new ContactsRepo(db);
    this.teams = new TeamsRepo(db);
  }

  private get keyring(): Keyring {
    return this.keys.get();
  }

  // ---- limits ----------------------------------------------------------------

  private maxContacts(teamId: string): number | null {
    const team = this.teams.byId(teamId);
    if (!team) throw notFound("workspace not found");
    return this.plans.limitsFor(team).maxContacts;
  }

  count(teamId: string): number {
    return this.repo.count(teamId);
  }

  /** True when the plan's contact limit leaves no room for one more (the lead search's 403). */
  isAtLimit(teamId: string): boolean {
    const max = this.maxContacts(teamId);
    return max !== null && this.repo.count(teamId) >= max;
  }

  limitState(teamId: string): ContactLimitState {
    return { count: this.repo.count(teamId), max: this.maxContacts(teamId) };
  }

  private limitError(max: number): AppError {
    return new AppError("contact_limit_reached", `the workspace has reached its plan's limit of ${max} contacts`);
  }

  // ---- encryption --------------------------------------------------------------

  /** Everything stored for a contact, encrypted under the current key. CPU only: call before the transaction. */
  private seal(teamId: string, id: string, plain: Plain, createdAt: string, updatedAt: string): ContactWrite {
    const keyring = this.keyring;
    const aad = (field: string) => contactAad(teamId, id, field);
    return {
      row: {
        id,
        team_id: teamId,
        email_ct: keyring.encrypt(plain.email, aad("email")),
        email_bidx: emailBlindIndex(keyring, teamId, plain.email),
        name_ct: keyring.encrypt(plain.name, aad("name")),
        phone_ct: plain.phone === null ? null : keyring.encrypt(plain.phone, aad("phone")),
        description: plain.description,
        status: plain.status,
        tags: JSON.stringify(plain.tags),
        key_id: keyring.currentId,
        created_at: createdAt,
        updated_at: updatedAt,
      },
      grams: emailGramHashes(keyring, teamId, plain.email),
      tags: plain.tags,
    };
  }

  private open(row: ContactRow): Contact {
    const keyring = this.keyring;
    const aad = (field: string) => contactAad(row.team_id, row.id, field);
    try {
      return {
        id: row.id,
        email: keyring.decrypt(row.email_ct, aad("email")),
        name: keyring.decrypt(row.name_ct, aad("name")),
        phone: row.phone_ct === null ? null : keyring.decrypt(row.phone_ct, aad("phone")),
        description: row.description,
        status: row.status,
        tags: JSON.parse(row.tags) as string[],
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    } catch (err) {
      if (err instanceof KeyringError) {
        // The operator's problem (wrong or missing key), not the caller's: a 500 whose
        // message says what to check, without any ciphertext or path.
        throw new AppError("internal_error", `contact ${row.id} cannot be decrypted: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }

  private decryptEmail(row: { id: string; email_ct: string }, teamId: string): string {
    return this.keyring.decrypt(row.email_ct, contactAad(teamId, row.id, "email"));
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
    const email = normaliseEmail(this.decryptEmail(row, teamId));
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

  /** Blind indexes of an email under every loaded key (one, or two during a rotation). */
  private blindIndexes(teamId: string, email: string): string[] {
    const keyring = this.keyring;
    return keyring.keyIds.map((keyId) => emailBlindIndex(keyring, teamId, email, keyId));
  }

  private duplicateOf(teamId: string, email: string, exceptId?: string): string | undefined {
    return this.repo.idsByBlindIndex(teamId, this.blindIndexes(teamId, email)).find((r) => r.id !== exceptId)?.id;
  }

  // ---- endpoints ---------------------------------------------------------------

  /** Endpoint 9. The limit check, the duplicate check and the insert are one immediate transaction. */
  add(teamId: string, input: ContactInput): { id: string } {
    const now = this.clock.now().toISOString();
    const id = newId("ct");
    const write = this.seal(teamId, id, plainOf(input), now, now);
    this.db
      .transaction(() => {
        const max = this.maxContacts(teamId);
        if (max !== null && this.repo.count(teamId) >= max) throw this.limitError(max);
        if (this.duplicateOf(teamId, input.email)) throw conflict(`a contact with email ${input.email} already exists in this workspace`);
        this.insertOrConflict(write, input.email);
      })
      .immediate();
    return { id };
  }

  private insertOrConflict(write: ContactWrite, email: string): void {
    try {
      this.repo.insert(write);
    } catch (err) {
      if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
        throw conflict(`a contact with email ${email} already exists in this workspace`);
      }
      throw err;
    }
  }

  /**
   * The import's batch path: each item validated on its own (an invalid one never stops
   * the others), then written in time slices: one immediate transaction validates,
   * encrypts and inserts items, checking the limit and duplicates (within the batch too),
   * until its slice is used up; then other requests get a turn of the event loop. A
   * 500-item batch validated and written in one go held the process for over a second
   * (≈ 1.3 ms of encryption, n-gram and page writes per contact), stalling every other
   * workspace's requests. The slice starts at IMPORT_SLICE_MS and doubles (up to
   * IMPORT_SLICE_MAX_MS) while nothing else was waiting during the turn given away, so an
   * import alone still writes in few, cheap transactions (a commit costs about as much as
   * several contacts). Each transaction is whole or absent: a failure half-way leaves whole
   * contacts only, which a retry reports as duplicates.
   */
  async addMany(teamId: string, items: readonly unknown[], extraTags: readonly string[] = []): Promise<ContactImportResponse> {
    const batch: ImportBatch = { teamId, items, extraTags, base: this.clock.now().getTime(), seen: new Set(), results: [] };
    let slice = IMPORT_SLICE_MS;
    for (let next = 0; next < items.length; ) {
      next = this.importSlice(batch, next, performance.now() + slice);
      if (next === items.length) break;
      const gaveAway = performance.now();
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Over a millisecond: other requests ran in that turn, so keep slices short.
      slice = performance.now() - gaveAway > 1 ? IMPORT_SLICE_MS : Math.min(slice * 2, IMPORT_SLICE_MAX_MS);
    }
    const results = batch.results;
    const tally = (s: ContactImportOutcome["status"]) => results.filter((r) => r.status === s).length;
    return { created: tally("created"), duplicates: tally("duplicate"), invalid: tally("invalid"), limitReached: tally("limit_reached"), results };
  }

  /**
   * One transaction of an import, from `items[from]` until `deadline` (at least one item);
   * returns the index of the first item left. Items are encrypted inside it, unlike
   * `add`'s: the slice is short, and sealing ahead would need its length in advance.
   */
  private importSlice(batch: ImportBatch, from: number, deadline: number): number {
    const { teamId, items, extraTags, seen, results } = batch;
    return this.db
      .transaction(() => {
        const max = this.maxContacts(teamId);
        let count = max === null ? 0 : this.repo.count(teamId);
        let index = from;
        do {
          const item = this.importItem(batch, index++);
          if ("error" in item) {
            results[item.index] = item;
            continue;
          }
          const { input, tags } = item;
          const normalised = normaliseEmail(input.email);
          if (seen.has(normalised) || this.duplicateOf(teamId, input.email)) {
            results[item.index] = { index: item.index, status: "duplicate", error: `a contact with email ${input.email} already exists in this workspace` };
            continue;
          }
          if (max !== null && count >= max) {
            results[item.index] = { index: item.index, status: "limit_reached", error: `the workspace has reached its plan's limit of ${max} contacts` };
            continue;
          }
          // Keep the file's order in "newest first": later rows get later timestamps (1 ms apart).
          const at = new Date(batch.base + item.index).toISOString();
          const write = this.seal(teamId, newId("ct"), { ...plainOf(input), tags }, at, at);
          this.repo.insert(write);
          seen.add(normalised);
          count++;
          results[item.index] = { index: item.index, status: "created", id: write.row.id };
        } while (index < items.length && performance.now() < deadline);
        return index;
      })
      .immediate();
  }

  /** An import item validated like the body of endpoint 9, with the import's tags added; or why it is invalid. */
  private importItem(batch: ImportBatch, index: number): { index: number; input: ContactInput; tags: string[] } | ContactImportOutcome & { error: string } {
    const parsed = ContactInput.safeParse(batch.items[index]);
    if (!parsed.success) return { index, status: "invalid", error: describeZodError(parsed.error, "contact") };
    const input = parsed.data;
    const tags = [...new Set([...(input.tags ?? []), ...batch.extraTags])];
    if (tags.length > CONTACT_LIMITS.tags) {
      return { index, status: "invalid", error: `tags must have at most ${CONTACT_LIMITS.tags} items, with the import's tags added` };
    }
    return { index, input, tags };
  }

  /** Endpoint 11. Another workspace's contact is a 404, as an unknown one. */
  get(teamId: string, id: string): Contact {
    const row = this.repo.byId(teamId, id);
    if (!row) throw notFound(`contact ${id} not found`);
    return this.open(row);
  }

  /** Endpoint 12. Re-encrypts the row under the current key (it may be an old one's). */
  update(teamId: string, id: string, change: ContactUpdate): Contact {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = this.repo.byId(teamId, id);
      if (!row) throw notFound(`contact ${id} not found`);
      const current = this.open(row);
      const next: Plain = {
        email: change.email ?? current.email,
        name: change.name ?? current.name,
        phone: change.phone === undefined ? current.phone : emptyToNull(change.phone),
        description: change.description === undefined ? current.description : emptyToNull(change.description),
        status: current.status,
        tags: change.tags ?? current.tags,
      };
      const now = this.clock.now().toISOString();
      const write = this.seal(teamId, id, next, row.created_at, now);
      const done = this.db
        .transaction(() => {
          // Someone else changed it since we read it (or a rotation re-encrypted it): read again.
          const fresh = this.repo.byId(teamId, id);
          if (!fresh) throw notFound(`contact ${id} not found`);
          if (fresh.updated_at !== row.updated_at || fresh.key_id !== row.key_id || fresh.email_ct !== row.email_ct) return false;
          if (change.email !== undefined && this.duplicateOf(teamId, next.email, id)) {
            throw conflict(`a contact with email ${next.email} already exists in this workspace`);
          }
          try {
            this.repo.update(write);
          } catch (err) {
            if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
              throw conflict(`a contact with email ${next.email} already exists in this workspace`);
            }
            throw err;
          }
          return true;
        })
        .immediate();
      if (done) return { ...next, id, createdAt: row.created_at, updatedAt: now };
    }
    throw conflict(`contact ${id} is being changed by another request; try again`);
  }

  /** Endpoint 13. */
  delete(teamId: string, id: string): void {
    const deleted = this.db.transaction(() => this.repo.delete(teamId, id)).immediate();
    if (!deleted) throw notFound(`contact ${id} not found`);
  }

  /** Endpoint 10. */
  list(teamId: string, query: ContactListQuery): ContactList {
    const filter: ContactFilter = { teamId, statuses: query.status, tags: query.tags };
    const offset = (query.page - 1) * query.limit;
    let total: number;
    let rows: ContactRow[];
    let exact: ReturnType<ContactService["exactGramPage"]>;
    if (query.search === undefined) {
      total = this.repo.countWhere(filter);
      rows = this.repo.page(filter, query.limit, offset);
    } else if ((exact = this.exactGramPage(filter, normaliseEmail(query.search), query.limit, offset))) {
      total = exact.total;
      rows = exact.rows;
    } else {
      const matched = this.matchingIds(filter, query.search);
      total = matched.length;
      const ids = matched.slice(offset, offset + query.limit);
      rows = ids.length ? this.repo.page({ teamId, ids }, query.limit, 0) : [];
    }
    return {
      contacts: rows.map((r) => this.open(r)),
      total,
      page: query.page,
      limit: query.limit,
      totalPages: Math.ceil(total / query.limit),
    };
  }

  /** Ids of the contacts whose email contains `search` (case-insensitive), newest first. */
  private matchingIds(filter: ContactFilter, search: string): string[] {
    const needle = normaliseEmail(search);
    // The longest grams the whole workspace has: rarer, so fewer candidates to confirm.
    const grams = gramsOf(needle, this.indexedGramSize(filter.teamId));
    if (grams.length === 0) return this.scanMatchingIds(filter, needle, SHORT_SEARCH_SCAN_CAP);
    const keyring = this.keyring;
    const out: Array<{ id: string; created_at: string }> = [];
    // Rows are indexed under the key they were written with: one pass per key id in use.
    for (const keyId of this.keyIdsInUse(filter.teamId)) {
      const hashes = [...new Set(grams.map((g) => gramHash(keyring, filter.teamId, g, keyId)))];
      // Drive the intersection from the rarest gram: the others are index probes per candidate.
      const ranked = this.rankGrams(filter.teamId, hashes);
      if (ranked[0]!.n === 0) continue;
      const candidates = this.repo.candidates({ ...filter, grams: ranked.map((r) => r.h) }, keyId);
      for (const c of candidates) {
        if (this.candidateEmail(c, filter.teamId).includes(needle)) out.push(c);
      }
    }
    return sortNewestFirst(out).map((c) => c.id);
  }

  /**
   * The loaded keys the workspace's rows may be under: normally one, and then no query;
   * during a rotation, those of the loaded keys that some row still uses. (A row under a
   * key that is not loaded cannot be decrypted anyway; reading it says so.)
   */
  private keyIdsInUse(teamId: string): string[] {
    const ids = this.keyring.keyIds;
    return ids.length === 1 ? ids : ids.filter((id) => this.repo.usesKey(teamId, id));
  }

  /**
   * The largest n whose grams every contact of the workspace has: MAX_GRAM_SIZE, or only
   * the trigrams while contacts written before the 4/5-gram index await the backfill.
   */
  private indexedGramSize(teamId: string): number {
    return this.repo.hasNgramBackfill(teamId) ? GRAM_SIZE : MAX_GRAM_SIZE;
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
    const keyring = this.keyring;
    // Rows are indexed under the key they were written with: the gram under each key in use.
    const grams = this.keyIdsInUse(filter.teamId).map((keyId) => gramHash(keyring, filter.teamId, needle, keyId));
    if (grams.length === 0) return { total: 0, rows: [] };
    return this.repo.exactGramPage(filter, grams, limit, offset);
  }

  /**
   * Computes the 4/5-grams of contacts written before they were indexed (migration 012
   * lists them; it has no key to read the emails): each is decrypted (outside the write
   * transaction) and its 4/5-grams added, one immediate transaction per batch with the
   * batch's postings inserted in key order, skipping a row changed in between (its update
   * or re-encryption wrote every gram already). Run at startup (createServices); a row whose
   * key is not loaded stays listed (its workspace keeps the trigram-only search) and is
   * counted as failed.
   */
  backfillNgrams(batchSize = 5000): { done: number; failed: number } {
    let done = 0;
    let failed = 0;
    let afterId = "";
    const keyring = this.keyring;
    for (;;) {
      const batch = this.repo.ngramBackfillBatch(afterId, batchSize);
      if (batch.length === 0) break;
      afterId = batch[batch.length - 1]!.id;
      const prepared: Array<{ teamId: string; contactId: string; createdAt: string; emailCt: string; grams: string[] }> = [];
      for (const row of batch) {
        try {
          const email = this.decryptEmail(row, row.team_id);
          // Its trigrams are there already (copied by the migration): only the 4/5-grams.
          const grams = emailGramHashes(keyring, row.team_id, email, row.key_id, MAX_GRAM_SIZE, GRAM_SIZE + 1);
          prepared.push({ teamId: row.team_id, contactId: row.id, createdAt: row.created_at, emailCt: row.email_ct, grams });
        } catch (err) {
          if (!(err instanceof KeyringError)) throw err;
          failed++;
        }
      }
      done += this.db.transaction(() => this.repo.completeBackfilledGrams(prepared)).immediate();
    }
    return { done, failed };
  }

  /**
   * Grams by capped posting count, rarest first. A long query has many grams: once one is
   * rare enough to drive the intersection cheaply, the others are not counted.
   */
  private rankGrams(teamId: string, hashes: string[]): Array<{ h: string; n: number }> {
    const ranked: Array<{ h: string; n: number }> = [];
    for (const [i, h] of hashes.entries()) {
      const n = this.repo.gramFrequency(teamId, h, GRAM_RANK_CAP);
      ranked.push({ h, n });
      if (n < RARE_ENOUGH) {
        ranked.push(...hashes.slice(i + 1).map((rest) => ({ h: rest, n: GRAM_RANK_CAP })));
        break;
      }
    }
    return ranked.sort((a, b) => a.n - b.n);
  }

  /** Decrypt-and-scan: short queries on small workspaces, and the benchmark's baseline. */
  scanMatchingIds(filter: ContactFilter, needle: string, cap = Infinity): string[] {
    const rows = this.repo.emailCiphertexts(filter);
    if (rows.length > cap) {
      throw badRequest(`query.search must be at least ${GRAM_SIZE} characters long in a workspace with more than ${cap} contacts`);
    }
    const normalised = normaliseEmail(needle);
    const out = rows.filter((r) => normaliseEmail(this.decryptEmail(r, filter.teamId)).includes(normalised));
    return sortNewestFirst(out).map((c) => c.id);
  }

  /** The benchmark's baseline: the same list answered by decrypting every email. */
  listByScan(teamId: string, query: ContactListQuery): ContactList {
    const filter: ContactFilter = { teamId, statuses: query.status, tags: query.tags };
    const matched = this.scanMatchingIds(filter, query.search ?? "");
    const offset = (query.page - 1) * query.limit;
    const ids = matched.slice(offset, offset + query.limit);
    const rows = ids.length ? this.repo.page({ teamId, ids }, query.limit, 0) : [];
    return { contacts: rows.map((r) => this.open(r)), total: matched.length, page: query.page, limit: query.limit, totalPages: Math.ceil(matched.length / query.limit) };
  }

  /** Exact lookup by email through the blind index (no decryption of other rows). */
  findByEmail(teamId: string, email: string): Contact | undefined {
    const id = this.duplicateOf(teamId, email);
    return id ? this.get(teamId, id) : undefined;
  }

  /** Every contact of the workspace, newest first, in pages (export). */
  *all(teamId: string, pageSize = 500): Generator<Contact> {
    for (let offset = 0; ; offset += pageSize) {
      const rows = this.repo.page({ teamId }, pageSize, offset);
      for (const row of rows) yield this.open(row);
      if (rows.length < pageSize) return;
    }
  }
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === "" ? null : value;
}

function plainOf(input: ContactInput): Plain {
  return {
    email: input.email,
    name: input.name,
    phone: emptyToNull(input.phone),
    description: emptyToNull(input.description),
    status: input.status ?? "active",
    tags: input.tags ?? [],
  };
}

function sortNewestFirst<T extends { id: string; created_at: string }>(rows: T[]): T[] {
  return rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
