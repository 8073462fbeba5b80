import type { Statement } from "better-sqlite3";
import { addToEdits, ContactGramPostings, type GramEdits, type GramLayout } from "./contact-gram-postings.js";
import type { Db } from "./db.js";

export interface ContactRow {
  id: string;
  team_id: string;
  email_ct: string;
  email_bidx: string;
  name_ct: string;
  phone_ct: string | null;
  description: string | null;
  status: "active" | "unsubscribed" | "bounced" | "replied";
  tags: string;
  /** IANA zone for send windows (migration 022); null: the brand's. */
  time_zone: string | null;
  key_id: string;
  created_at: string;
  updated_at: string;
  /** Migration 027: the verification's JSON and status (absent on rows being written). */
  verification?: string | null;
  verification_status?: string | null;
  /** The contact's number in the gram postings (migration 023); assigned on insert. */
  seq: number;
}

/** Filters of the contact list that SQL can apply without decrypting. */
export interface ContactFilter {
  teamId: string;
  statuses?: readonly string[];
  tags?: readonly string[];
  /** Only these contact ids (candidates confirmed by decryption). */
  ids?: readonly string[];
  /** Verification statuses (any of); `unverified` is a contact never verified. */
  verification?: readonly string[];
}

export interface ContactWrite {
  /** Without `seq`: the insert assigns it. */
  row: Omit<ContactRow, "seq">;
  grams: readonly string[];
  tags: readonly string[];
}

/** What the newest-first ordering of a search's matches needs of each. */
interface Ordered {
  seq: number;
  id: string;
  created_at: string;
}

/** Below this many candidates, the remaining grams are not intersected (see `candidates`). */
const CONFIRM_DIRECTLY = 256;

/**
 * Rows of the newest-first walk allowed per member before sorting the members instead: a
 * walked row is an index entry, a sorted member a lookup of its row (a few times dearer).
 */
const WALK_PER_MEMBER = 4;

/** A gram hash (16 hex characters) as the 8-byte key the index stores (migration 012). */
function gramKey(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}

/** One contact's grams as postings of its seq. */
function editsOf(seq: number, grams: readonly string[]): GramEdits {
  return addToEdits(new Map(), seq, grams);
}

/** Newest first: `created_at` then `id`, both descending (the list's order). */
function newestFirst(a: Ordered, b: Ordered): number {
  return a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The intersection of ascending lists (the first decides the order). */
function intersect(a: readonly number[], b: readonly number[]): number[] {
  const keep = new Set(b);
  return a.filter((v) => keep.has(v));
}

const placeholderLists: string[] = [];

/** `?, ?, …` n times (kept: the duplicate check of every imported contact asks for one). */
function placeholders(n: number): string {
  return (placeholderLists[n] ??= Array.from({ length: n }, () => "?").join(", "));
}

/** The WHERE clause of a filter on `c` (contacts). Values are bound, never interpolated. */
function whereOf(filter: ContactFilter): { sql: string; params: unknown[] } {
  // `+c.team_id` when driven from an id list: a check on each row, not an index to scan.
  const clauses = [filter.ids ? "+c.team_id = ?" : "c.team_id = ?"];
  const params: unknown[] = [filter.teamId];
  if (filter.statuses?.length) {
    clauses.push(`c.status IN (${placeholders(filter.statuses.length)})`);
    params.push(...filter.statuses);
  }
  if (filter.tags?.length) {
    clauses.push(`EXISTS (SELECT 1 FROM contact_tags t WHERE t.team_id = c.team_id AND t.contact_id = c.id AND t.tag IN (${placeholders(filter.tags.length)}))`);
    params.push(...filter.tags);
  }
  if (filter.verification?.length) {
    const statuses = filter.verification.filter((v) => v !== "unverified");
    const parts = statuses.length ? [`c.verification_status IN (${placeholders(statuses.length)})`] : [];
    if (statuses.length < filter.verification.length) parts.push("c.verification_status IS NULL");
    clauses.push(`(${parts.join(" OR ")})`);
    params.push(...statuses);
  }
  return { sql: clauses.join(" AND "), params };
}

/**
 * The FROM clause: with `ids`, drive from the id list (CROSS JOIN pins that order; left
 * to itself the planner may scan a whole workspace's index and test each row against the list).
 */
function fromOf(filter: ContactFilter): { sql: string; params: unknown[] } {
  if (!filter.ids) return { sql: "contacts c", params: [] };
  return { sql: "json_each(?) j CROSS JOIN contacts c ON c.id = j.value", params: [JSON.stringify(filter.ids)] };
}

export class ContactsRepo {
  private readonly statements = new Map<string, Statement>();
  private readonly grams: ContactGramPostings;

  constructor(private readonly db: Db) {
    this.grams = new ContactGramPostings(db);
  }

  /** Prepared once per connection: the import path runs these thousands of times. */
  private stmt(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  insert(write: ContactWrite): void {
    this.insertAll([write]);
  }

  /**
   * Inserts contacts (in the caller's transaction), each with the next seq, then all their
   * gram postings at once: one row per gram for the whole batch, appended to the index's
   * tail in key order (`ContactGramPostings.append`), instead of a row per gram and contact.
   */
  insertAll(writes: readonly ContactWrite[]): void {
    if (writes.length === 0) return;
    let seq = this.stmt("SELECT coalesce(max(seq), 0) FROM contacts").pluck().get() as number;
    const insert = this.stmt(
      `INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, phone_ct, description, status, tags, key_id, created_at, updated_at, time_zone, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const edits = new Map<string, GramEdits>();
    for (const write of writes) {
      const r = write.row;
      insert.run(r.id, r.team_id, r.email_ct, r.email_bidx, r.name_ct, r.phone_ct, r.description, r.status, r.tags, r.key_id, r.created_at, r.updated_at, r.time_zone, ++seq);
      this.insertTags(r.team_id, r.id, write.tags);
      let team = edits.get(r.team_id);
      if (!team) edits.set(r.team_id, (team = new Map()));
      addToEdits(team, seq, write.grams);
    }
    for (const [teamId, team] of edits) this.grams.append(teamId, team);
  }

  /** Rewrite a contact's columns, grams (replacing `oldGrams`, what its old email had) and tags. Guarded by team. */
  update(write: ContactWrite, oldGrams: readonly string[]): boolean {
    const r = write.row;
    const seq = this
      .stmt(
        `UPDATE contacts SET email_ct = ?, email_bidx = ?, name_ct = ?, phone_ct = ?, description = ?, status = ?, tags = ?, key_id = ?, updated_at = ?, time_zone = ?
         WHERE id = ? AND team_id = ? RETURNING seq`,
      )
      .pluck()
      .get(r.email_ct, r.email_bidx, r.name_ct, r.phone_ct, r.description, r.status, r.tags, r.key_id, r.updated_at, r.time_zone, r.id, r.team_id) as number | undefined;
    if (seq === undefined) return false;
    this.replaceGrams(r.team_id, r.id, seq, oldGrams, write.grams);
    this.replaceTags(r.team_id, r.id, write.tags);
    return true;
  }

  setBlindIndex(contactId: string, bidx: string): void {
    this.stmt("UPDATE contacts SET email_bidx = ? WHERE id = ?").run(bidx, contactId);
  }

  /**
   * A contact's complete gram set (all sizes) in place of the old one (`oldGrams`: every
   * gram its old email had under its old key; those it lacked are skipped): it no longer
   * needs the 4/5-gram backfill.
   */
  replaceGrams(teamId: string, contactId: string, seq: number, oldGrams: readonly string[], grams: readonly string[]): void {
    this.grams.remove(teamId, editsOf(seq, oldGrams));
    this.grams.add(teamId, editsOf(seq, grams));
    this.stmt("DELETE FROM contact_ngram_backfill WHERE contact_id = ?").run(contactId);
  }

  /**
   * Adds the grams of contacts listed for the backfill and unlists them, the whole batch's
   * postings in one sweep of the index. Only contacts still listed and still holding
   * `emailCt` are touched: an update or a rotation in between rewrote all their grams and
   * unlisted them.
   */
  completeBackfilledGrams(rows: ReadonlyArray<{ teamId: string; contactId: string; seq: number; emailCt: string; grams: readonly string[] }>): number {
    const listed = this.stmt(
      "SELECT 1 FROM contact_ngram_backfill b JOIN contacts c ON c.id = b.contact_id WHERE b.contact_id = ? AND c.email_ct = ?",
    );
    const edits = new Map<string, GramEdits>();
    let done = 0;
    for (const row of rows) {
      if (listed.get(row.contactId, row.emailCt) === undefined) continue;
      let team = edits.get(row.teamId);
      if (!team) edits.set(row.teamId, (team = new Map()));
      addToEdits(team, row.seq, row.grams);
      this.stmt("DELETE FROM contact_ngram_backfill WHERE contact_id = ?").run(row.contactId);
      done++;
    }
    for (const [teamId, team] of edits) this.grams.add(teamId, team);
    return done;
  }

  /** Whether some contact of the workspace still lacks its 4/5-grams (then only trigrams are complete). */
  hasNgramBackfill(teamId: string): boolean {
    return this.stmt("SELECT 1 FROM contact_ngram_backfill WHERE team_id = ? LIMIT 1").get(teamId) !== undefined;
  }

  /** The next contacts waiting for their 4/5-grams, by id after `afterId` (a cursor that skips failures). */
  ngramBackfillBatch(afterId: string, limit: number): Array<Pick<ContactRow, "id" | "team_id" | "email_ct" | "key_id" | "seq">> {
    return this
      .stmt(
        `SELECT c.id, c.team_id, c.email_ct, c.key_id, c.seq FROM contact_ngram_backfill b CROSS JOIN contacts c ON c.id = b.contact_id
         WHERE b.contact_id > ? ORDER BY b.contact_id LIMIT ?`,
      )
      .all(afterId, limit) as Array<Pick<ContactRow, "id" | "team_id" | "email_ct" | "key_id" | "seq">>;
  }

  /**
   * A search answered by the index alone: the contacts having any of `grams` (the query's
   * own n-gram under each key in use; a posting is a match, see `ContactService.list`),
   * passing the other filters, as `total` and one page newest first. Without other filters
   * `total` is the posting lists' length and only the page's rows are read.
   */
  exactGramPage(filter: ContactFilter, grams: readonly string[], limit: number, offset: number): { total: number; rows: ContactRow[] } {
    const layout = this.grams.layout(filter.teamId);
    let seqs: number[] = [];
    for (const gram of grams) seqs = seqs.concat(this.grams.list(filter.teamId, gramKey(gram), layout));
    if (grams.length > 1) seqs = [...new Set(seqs)];
    if (seqs.length === 0) return { total: 0, rows: [] };
    if (filter.statuses?.length || filter.tags?.length || filter.verification?.length) {
      // Other filters need each candidate's row: one probe per posting, no decryption.
      const matched = this.orderedBySeq(filter, seqs).sort(newestFirst);
      const ids = matched.slice(offset, offset + limit).map((m) => m.id);
      return { total: matched.length, rows: ids.length ? this.page({ teamId: filter.teamId, ids }, limit, 0) : [] };
    }
    const ids = this.newestOf(filter.teamId, seqs, limit, offset);
    return { total: seqs.length, rows: ids.length ? this.page({ teamId: filter.teamId, ids }, limit, 0) : [] };
  }

  /**
   * Ids of the page `[offset, offset + limit)`, newest first, of the contacts numbered
   * `seqs`. Two ways, the cheaper first: walk the workspace's newest-first index (which
   * holds seq, migration 023) keeping members, which for a common gram reaches the page
   * after a few rows; when the walk has read as many rows as there are members without
   * getting there (a rare gram, a deep page), read every member's order keys and sort.
   * Either way at most a few times the cheaper one.
   */
  private newestOf(teamId: string, seqs: readonly number[], limit: number, offset: number): string[] {
    // A bitmap by seq: a common gram has tens of thousands of members (a Set of them cost
    // more than the walk).
    let max = 0;
    for (const seq of seqs) if (seq > max) max = seq;
    const bits = new Uint8Array((max >> 3) + 1);
    for (const seq of seqs) bits[seq >> 3]! |= 1 << (seq & 7);
    const isMember = (seq: number) => seq <= max && (bits[seq >> 3]! & (1 << (seq & 7))) !== 0;
    const want = offset + limit;
    const ids: string[] = [];
    const budget = seqs.length * WALK_PER_MEMBER;
    let walked = 0;
    let found = 0;
    const walk = this.stmt("SELECT seq, id FROM contacts WHERE team_id = ? ORDER BY created_at DESC, id DESC").raw();
    for (const [seq, id] of walk.iterate(teamId) as IterableIterator<[number, string]>) {
      if (isMember(seq) && found++ >= offset) ids.push(id);
      if (found >= want || ++walked > budget) break;
    }
    if (found >= want || walked <= budget) return ids;
    return this.orderedBySeq({ teamId }, seqs)
      .sort(newestFirst)
      .slice(offset, want)
      .map((m) => m.id);
  }

  /** Seq, id and creation time of the contacts numbered `seqs` that pass the filter. */
  private orderedBySeq(filter: ContactFilter, seqs: readonly number[]): Ordered[] {
    const { sql, params } = whereOf({ ...filter, ids: [] });
    return this.stmt(`SELECT c.seq, c.id, c.created_at FROM json_each(?) j CROSS JOIN contacts c ON c.seq = j.value WHERE ${sql}`).all(JSON.stringify(seqs), ...params) as Ordered[];
  }

  private replaceTags(teamId: string, contactId: string, tags: readonly string[]): void {
    this.stmt("DELETE FROM contact_tags WHERE contact_id = ?").run(contactId);
    this.insertTags(teamId, contactId, tags);
  }

  private insertTags(teamId: string, contactId: string, tags: readonly string[]): void {
    const insert = this.stmt("INSERT OR IGNORE INTO contact_tags (team_id, tag, contact_id) VALUES (?, ?, ?)");
    for (const tag of tags) insert.run(teamId, tag, contactId);
  }

  byId(teamId: string, id: string): ContactRow | undefined {
    return this.stmt("SELECT * FROM contacts WHERE id = ? AND team_id = ?").get(id, teamId) as ContactRow | undefined;
  }

  /** Ids of contacts with any of these blind indexes (one per loaded key). */
  idsByBlindIndex(teamId: string, bidxs: readonly string[]): Array<{ id: string; key_id: string; email_bidx: string }> {
    return this
      .stmt(`SELECT id, key_id, email_bidx FROM contacts WHERE team_id = ? AND email_bidx IN (${placeholders(bidxs.length)})`)
      .all(teamId, ...bidxs) as Array<{ id: string; key_id: string; email_bidx: string }>;
  }

  /**
   * Deletes a contact and its gram postings: `grams`, what its email has under its key, or
   * when that cannot be computed (its key is not loaded), undefined: then its seq is looked
   * for in every posting list of the workspace.
   */
  delete(teamId: string, id: string, grams: readonly string[] | undefined): boolean {
    const seq = this.stmt("DELETE FROM contacts WHERE id = ? AND team_id = ? RETURNING seq").pluck().get(id, teamId) as number | undefined;
    if (seq === undefined) return false;
    if (grams) this.grams.remove(teamId, editsOf(seq, grams));
    else this.grams.purge(teamId, seq);
    return true;
  }

  count(teamId: string): number {
    return (this.stmt("SELECT COUNT(*) AS n FROM contacts WHERE team_id = ?").get(teamId) as { n: number }).n;
  }

  /** Whether any of the workspace's contacts is under this key (index on key_id, then team). */
  usesKey(teamId: string, keyId: string): boolean {
    return this.stmt("SELECT 1 FROM contacts WHERE key_id = ? AND team_id = ? LIMIT 1").get(keyId, teamId) !== undefined;
  }

  countWhere(filter: ContactFilter & { keyId?: string }): number {
    const { sql, params } = whereOf(filter);
    const keySql = filter.keyId ? " AND c.key_id = ?" : "";
    const row = this.stmt(`SELECT COUNT(*) AS n FROM contacts c WHERE ${sql}${keySql}`).get(...params, ...(filter.keyId ? [filter.keyId] : [])) as { n: number };
    return row.n;
  }

  /** One page, newest first; `created_at` then `id` makes the order total and stable. */
  page(filter: ContactFilter, limit: number, offset: number): ContactRow[] {
    if (!filter.statuses?.length && !filter.tags?.length && !filter.ids && !filter.verification?.length) {
      // Unfiltered: walk the covering (team_id, created_at, id) index for the ids, so a deep
      // OFFSET skips index entries instead of reading every skipped row, then fetch the page.
      const ids = (
        this.stmt("SELECT id FROM contacts WHERE team_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?").all(filter.teamId, limit, offset) as Array<{ id: string }>
      ).map((r) => r.id);
      return ids.length ? this.page({ teamId: filter.teamId, ids }, limit, 0) : [];
    }
    const { sql, params } = whereOf(filter);
    const from = fromOf(filter);
    return this
      .stmt(`SELECT c.* FROM ${from.sql} WHERE ${sql} ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?`)
      .all(...from.params, ...params, limit, offset) as ContactRow[];
  }

  /**
   * Candidates for a substring search: id, email ciphertext and creation time of the
   * contacts (of one key id) that have all of `grams` and pass the other filters (a
   * superset: callers confirm each by decrypting). The posting lists are intersected
   * from the rarest (callers order them); only the intersection's rows are read.
   */
  candidates(
    filter: ContactFilter,
    grams: readonly string[],
    keyId: string,
    layout = this.grams.layout(filter.teamId),
  ): Array<{ id: string; email_ct: string; created_at: string }> {
    let seqs: number[] | undefined;
    for (const gram of grams) {
      // Few candidates left: confirming them (by decryption) is cheaper than reading the
      // commoner grams' long posting lists, and confirmation decides anyway.
      if (seqs !== undefined && seqs.length <= CONFIRM_DIRECTLY) break;
      const list = this.grams.list(filter.teamId, gramKey(gram), layout);
      seqs = seqs === undefined ? list : intersect(seqs, list);
      if (seqs.length === 0) return [];
    }
    if (!seqs) return [];
    const { sql, params } = whereOf({ ...filter, ids: [] });
    // `+c.key_id`: a filter on the looked-up row, never an index to search by.
    return this
      .stmt(`SELECT c.id, c.email_ct, c.created_at FROM json_each(?) j CROSS JOIN contacts c ON c.seq = j.value WHERE ${sql} AND +c.key_id = ?`)
      .all(JSON.stringify(seqs), ...params, keyId) as Array<{ id: string; email_ct: string; created_at: string }>;
  }

  /** How many contacts carry a blind gram: to drive the intersection from the rarest. */
  gramFrequency(teamId: string, gram: string, layout = this.grams.layout(teamId)): number {
    return this.grams.count(teamId, gramKey(gram), layout);
  }

  /** Where a workspace's gram postings are: read once for all the grams of one search. */
  gramLayout(teamId: string): GramLayout {
    return this.grams.layout(teamId);
  }

  /** Every email ciphertext of a workspace passing the filters: the decrypt-and-scan path. */
  emailCiphertexts(filter: ContactFilter): Array<{ id: string; email_ct: string; created_at: string }> {
    const { sql, params } = whereOf(filter);
    return this.db.prepare(`SELECT c.id, c.email_ct, c.created_at FROM contacts c WHERE ${sql}`).all(...params) as Array<{
      id: string;
      email_ct: string;
      created_at: string;
    }>;
  }
}
