import type { Clock } from "../../core/clock.js";
import { AppError, conflict, notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { normaliseEmail } from "../../core/blind-index.js";
import {
  CONTACT_LIMITS,
  ContactInput,
  type Contact,
  type ContactImportOutcome,
  type ContactImportResponse,
  type ContactList,
  type ContactListQuery,
  type ContactUpdate,
} from "../../core/schemas/contact.js";
import { describeZodError } from "../../core/validation.js";
import { ContactsRepo, type ContactFilter, type ContactRow, type ContactWrite } from "../../store/contacts.js";
import { VerificationRepo } from "../../store/contact-verification.js";
import type { Db } from "../../store/db.js";
import { ContactSearch } from "./contact-search.js";
import { ContactCipher, type PlainContact } from "./contacts-encryption.js";
import type { KeyringSource } from "../keyring-source.js";
import type { PlanService } from "../access/plans.js";

export interface ContactServiceDeps {
  db: Db;
  clock: Clock;
  keys: KeyringSource;
  plans: PlanService;
  /** See ContactSearch (tests make it small). */
  shortSearchScanCap?: number;
}

/** An import's transactions last this long while other requests are waiting (bench/load.js)... */
const IMPORT_SLICE_MS = 8;
/** ...and up to this long while none are. */
const IMPORT_SLICE_MAX_MS = 64;
/** An import's next batch arriving within this long starts with the slice length the last one ended with. */
const IMPORT_SLICE_CARRY_MS = 1000;

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

/** How an import's batch gives other requests their turn between two of its slices. */
export interface ImportOptions {
  /** Resolves when the next slice may run (the server: a write turn); default: the next pass of the event loop. */
  pause?: () => Promise<void>;
}

/**
 * Contacts of a workspace: endpoints 9–13 and the import, within the plan's contact limit.
 * Fields are encrypted (`contacts-encryption.ts`); the list's substring search is
 * `contact-search.ts`.
 */
export class ContactService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly plans: PlanService;
  private readonly repo: ContactsRepo;
  private readonly cipher: ContactCipher;
  private readonly search: ContactSearch;
  private readonly verifications: VerificationRepo;
  /** The slice length the last import batch ended with, and when (see addMany). */
  private lastSlice = { ms: IMPORT_SLICE_MS, endedAt: -Infinity };

  constructor(deps: ContactServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.plans = deps.plans;
    this.repo = new ContactsRepo(deps.db);
    this.verifications = new VerificationRepo(deps.db);
    this.cipher = new ContactCipher(deps.keys);
    this.search = new ContactSearch({ repo: this.repo, cipher: this.cipher, keys: deps.keys, shortSearchScanCap: deps.shortSearchScanCap });
  }

  // ---- limits ----------------------------------------------------------------

  private maxContacts(teamId: string): number | null {
    return this.plans.limitsForTeam(teamId).maxContacts;
  }

  count(teamId: string): number {
    return this.repo.count(teamId);
  }

  private limitError(max: number): AppError {
    return new AppError("contact_limit_reached", `the workspace has reached its plan's limit of ${max} contacts`);
  }

  private duplicateOf(teamId: string, email: string, exceptId?: string): string | undefined {
    return this.repo.idsByBlindIndex(teamId, this.cipher.blindIndexes(teamId, email)).find((r) => r.id !== exceptId)?.id;
  }

  // ---- endpoints ---------------------------------------------------------------

  /** Endpoint 9. The limit check, the duplicate check and the insert are one immediate transaction. */
  add(teamId: string, input: ContactInput): { id: string } {
    const now = this.clock.now().toISOString();
    const id = newId("ct");
    const write = this.cipher.seal(teamId, id, plainOf(input), now, now);
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
   * several contacts). A client importing batch after batch keeps its slice length from one
   * batch to the next (if the next comes within IMPORT_SLICE_CARRY_MS): otherwise every
   * 500-item batch started over at 8 ms, and an import alone wrote ~70 contacts per
   * transaction instead of a few hundred, each transaction rewriting the same gram blocks
   * (bench/contacts.js). Each transaction is whole or absent: a failure half-way leaves whole
   * contacts only, which a retry reports as duplicates.
   */
  async addMany(teamId: string, items: readonly unknown[], extraTags: readonly string[] = [], options: ImportOptions = {}): Promise<ContactImportResponse> {
    const pause = options.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
    const batch: ImportBatch = { teamId, items, extraTags, base: this.clock.now().getTime(), seen: new Set(), results: [] };
    const carried = performance.now() - this.lastSlice.endedAt < IMPORT_SLICE_CARRY_MS;
    let slice = carried ? this.lastSlice.ms : IMPORT_SLICE_MS;
    for (let next = 0; next < items.length; ) {
      next = this.importSlice(batch, next, performance.now() + slice);
      if (next === items.length) break;
      const gaveAway = performance.now();
      await pause();
      // Over a millisecond: other requests ran in that turn, so keep slices short.
      slice = performance.now() - gaveAway > 1 ? IMPORT_SLICE_MS : Math.min(slice * 2, IMPORT_SLICE_MAX_MS);
    }
    this.lastSlice = { ms: slice, endedAt: performance.now() };
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
        // Inserted together at the end: their gram postings in one sweep of the index.
        const writes: ContactWrite[] = [];
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
          const write = this.cipher.seal(teamId, newId("ct"), { ...plainOf(input), tags }, at, at);
          writes.push(write);
          seen.add(normalised);
          count++;
          results[item.index] = { index: item.index, status: "created", id: write.row.id };
        } while (index < items.length && performance.now() < deadline);
        this.repo.insertAll(writes);
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
  /** A stored contact's email, decrypted (the delivery reads rows it has already filtered). */
  emailOf(row: ContactRow): string {
    return this.cipher.decryptEmail(row, row.team_id);
  }

  /** A stored row, decrypted (the delivery's claim reads the rows itself, and renders from what this returns). */
  open(row: ContactRow): Contact {
    return this.cipher.open(row);
  }

  get(teamId: string, id: string): Contact {
    const row = this.repo.byId(teamId, id);
    if (!row) throw notFound(`contact ${id} not found`);
    return this.cipher.open(row);
  }

  /** Endpoint 12. Re-encrypts the row under the current key (it may be an old one's). */
  update(teamId: string, id: string, change: ContactUpdate): Contact {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = this.repo.byId(teamId, id);
      if (!row) throw notFound(`contact ${id} not found`);
      const current = this.cipher.open(row);
      const next: PlainContact = {
        email: change.email ?? current.email,
        name: change.name ?? current.name,
        phone: change.phone === undefined ? current.phone : emptyToNull(change.phone),
        description: change.description === undefined ? current.description : emptyToNull(change.description),
        status: current.status,
        tags: change.tags ?? current.tags,
        timeZone: change.timeZone === undefined ? current.timeZone : change.timeZone,
      };
      const now = this.clock.now().toISOString();
      const write = this.cipher.seal(teamId, id, next, row.created_at, now);
      // A verification is about one address: another email starts unverified.
      const emailChanged = change.email !== undefined && normaliseEmail(change.email) !== normaliseEmail(current.email);
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
            this.repo.update(write, this.cipher.storedGrams(row) ?? []);
          } catch (err) {
            if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
              throw conflict(`a contact with email ${next.email} already exists in this workspace`);
            }
            throw err;
          }
          if (emailChanged) this.verifications.clear(id);
          return true;
        })
        .immediate();
      if (done) return { ...next, id, verification: emailChanged ? null : current.verification, createdAt: row.created_at, updatedAt: now };
    }
    throw conflict(`contact ${id} is being changed by another request; try again`);
  }

  /** Endpoint 13. */
  delete(teamId: string, id: string): void {
    const deleted = this.db
      .transaction(() => {
        const row = this.repo.byId(teamId, id);
        // Its postings are found from its email's grams (or, key not loaded, by a scan).
        return row !== undefined && this.repo.delete(teamId, id, this.cipher.storedGrams(row));
      })
      .immediate();
    if (!deleted) throw notFound(`contact ${id} not found`);
  }

  /** Endpoint 10: a page of the filtered list, newest first; with `search`, through the blind n-gram index. */
  list(teamId: string, query: ContactListQuery): ContactList {
    const filter: ContactFilter = { teamId, statuses: query.status, tags: query.tags, verification: query.verification };
    const offset = (query.page - 1) * query.limit;
    let total: number;
    let rows: ContactRow[];
    if (query.search === undefined) {
      total = this.repo.countWhere(filter);
      rows = this.repo.page(filter, query.limit, offset);
    } else {
      ({ total, rows } = this.search.page(filter, query.search, query.limit, offset));
    }
    return {
      contacts: rows.map((r) => this.cipher.open(r)),
      total,
      page: query.page,
      limit: query.limit,
      totalPages: Math.ceil(total / query.limit),
    };
  }

  /** Exact lookup by email through the blind index (no decryption of other rows). */
  findByEmail(teamId: string, email: string): Contact | undefined {
    const id = this.duplicateOf(teamId, email);
    return id ? this.get(teamId, id) : undefined;
  }
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === "" ? null : value;
}

function plainOf(input: ContactInput): PlainContact {
  return {
    email: input.email,
    name: input.name,
    phone: emptyToNull(input.phone),
    description: emptyToNull(input.description),
    status: input.status ?? "active",
    tags: input.tags ?? [],
    timeZone: input.timeZone ?? null,
  };
}
