import type { Statement } from "better-sqlite3";
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
}

/** Filters of the contact list that SQL can apply without decrypting. */
export interface ContactFilter {
  teamId: string;
  statuses?: readonly string[];
  tags?: readonly string[];
  /** Only contacts whose email has every one of these blind grams (one key id's values). */
  grams?: readonly string[];
  /** Only these contact ids (candidates confirmed by decryption). */
  ids?: readonly string[];
  /** Verification statuses (any of); `unverified` is a contact never verified. */
  verification?: readonly string[];
}

export interface ContactWrite {
  row: ContactRow;
  grams: readonly string[];
  tags: readonly string[];
}

/** Below this many candidates, the remaining grams are not intersected (see `candidates`). */
const CONFIRM_DIRECTLY = 256;

/** A gram hash (16 hex characters) as the 8-byte key the index stores (migration 012). */
function gramKey(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(", ");
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
  if (filter.grams?.length) {
    // One index probe per gram and contact: (team_id, gram, created_at, contact_id) is the primary key.
    for (const gram of filter.grams) {
      clauses.push("EXISTS (SELECT 1 FROM contact_email_ngrams g WHERE g.team_id = c.team_id AND g.gram = ? AND g.created_at = c.created_at AND g.contact_id = c.id)");
      params.push(gramKey(gram));
    }
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

  constructor(private readonly db: Db) {}

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
    const r = write.row;
    this
      .stmt(
        `INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, phone_ct, description, status, tags, key_id, created_at, updated_at, time_zone)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.id, r.team_id, r.email_ct, r.email_bidx, r.name_ct, r.phone_ct, r.description, r.status, r.tags, r.key_id, r.created_at, r.updated_at, r.time_zone);
    this.insertGrams(r.team_id, r.id, r.created_at, write.grams);
    this.insertTags(r.team_id, r.id, write.tags);
  }

  /** Rewrite a contact's columns, grams and tags. Guarded by team. */
  update(write: ContactWrite): boolean {
    const r = write.row;
    const changed = this.db
      .prepare(
        `UPDATE contacts SET email_ct = ?, email_bidx = ?, name_ct = ?, phone_ct = ?, description = ?, status = ?, tags = ?, key_id = ?, updated_at = ?, time_zone = ?
         WHERE id = ? AND team_id = ?`,
      )
      .run(r.email_ct, r.email_bidx, r.name_ct, r.phone_ct, r.description, r.status, r.tags, r.key_id, r.updated_at, r.time_zone, r.id, r.team_id).changes;
    if (changed === 0) return false;
    this.replaceGrams(r.team_id, r.id, r.created_at, write.grams);
    this.replaceTags(r.team_id, r.id, write.tags);
    return true;
  }

  setBlindIndex(contactId: string, bidx: string): void {
    this.stmt("UPDATE contacts SET email_bidx = ? WHERE id = ?").run(bidx, contactId);
  }

  /** A contact's complete gram set (all sizes): it no longer needs the 4/5-gram backfill. */
  replaceGrams(teamId: string, contactId: string, createdAt: string, grams: readonly string[]): void {
    this.stmt("DELETE FROM contact_email_ngrams WHERE contact_id = ?").run(contactId);
    this.insertGrams(teamId, contactId, createdAt, grams);
    this.stmt("DELETE FROM contact_ngram_backfill WHERE contact_id = ?").run(contactId);
  }

  /** Up to 32 grams per statement: one native call instead of one per gram. */
  private insertGrams(teamId: string, contactId: string, createdAt: string, grams: readonly string[]): void {
    for (let i = 0; i < grams.length; i += 32) {
      const chunk = grams.slice(i, i + 32);
      const values = chunk.map(() => "(?, ?, ?, ?)").join(", ");
      this.stmt(`INSERT OR IGNORE INTO contact_email_ngrams (team_id, gram, created_at, contact_id) VALUES ${values}`).run(
        ...chunk.flatMap((gram) => [teamId, gramKey(gram), createdAt, contactId]),
      );
    }
  }

  /**
   * Adds the grams of contacts listed for the backfill and unlists them; the postings of a
   * whole batch are inserted sorted by key, so the inserts sweep the index in order instead
   * of landing on random pages (the backfill of a large workspace is I/O-bound otherwise).
   * Only contacts still listed and still holding `emailCt` are touched: an update or a
   * rotation in between rewrote all their grams and unlisted them.
   */
  completeBackfilledGrams(rows: ReadonlyArray<{ teamId: string; contactId: string; createdAt: string; emailCt: string; grams: readonly string[] }>): number {
    const listed = this.stmt(
      "SELECT 1 FROM contact_ngram_backfill b JOIN contacts c ON c.id = b.contact_id WHERE b.contact_id = ? AND c.email_ct = ?",
    );
    const postings: Array<[string, Buffer, string, string]> = [];
    let done = 0;
    for (const row of rows) {
      if (listed.get(row.contactId, row.emailCt) === undefined) continue;
      for (const gram of row.grams) postings.push([row.teamId, gramKey(gram), row.createdAt, row.contactId]);
      this.stmt("DELETE FROM contact_ngram_backfill WHERE contact_id = ?").run(row.contactId);
      done++;
    }
    postings.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : Buffer.compare(a[1], b[1])));
    for (let i = 0; i < postings.length; i += 32) {
      const chunk = postings.slice(i, i + 32);
      this.stmt(`INSERT OR IGNORE INTO contact_email_ngrams (team_id, gram, created_at, contact_id) VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")}`).run(...chunk.flat());
    }
    return done;
  }

  /** Whether some contact of the workspace still lacks its 4/5-grams (then only trigrams are complete). */
  hasNgramBackfill(teamId: string): boolean {
    return this.stmt("SELECT 1 FROM contact_ngram_backfill WHERE team_id = ? LIMIT 1").get(teamId) !== undefined;
  }

  /** The next contacts waiting for their 4/5-grams, by id after `afterId` (a cursor that skips failures). */
  ngramBackfillBatch(afterId: string, limit: number): Array<Pick<ContactRow, "id" | "team_id" | "email_ct" | "key_id" | "created_at">> {
    return this
      .stmt(
        `SELECT c.id, c.team_id, c.email_ct, c.key_id, c.created_at FROM contact_ngram_backfill b CROSS JOIN contacts c ON c.id = b.contact_id
         WHERE b.contact_id > ? ORDER BY b.contact_id LIMIT ?`,
      )
      .all(afterId, limit) as Array<Pick<ContactRow, "id" | "team_id" | "email_ct" | "key_id" | "created_at">>;
  }

  /**
   * A search answered by the index alone: the contacts having any of `grams` (the query's
   * own n-gram under each key in use; a posting is a match, see `ContactService.list`),
   * passing the other filters, as `total` and one page newest first. The posting list's
   * key order is the page order, so without other filters the count and the page are
   * index ranges and only the page's rows are read from `contacts`.
   */
  exactGramPage(filter: ContactFilter, grams: readonly string[], limit: number, offset: number): { total: number; rows: ContactRow[] } {
    const gramSql = `g.team_id = ? AND g.gram IN (${placeholders(grams.length)})`;
    const keys = [filter.teamId, ...grams.map(gramKey)];
    if (!filter.statuses?.length && !filter.tags?.length && !filter.verification?.length) {
      const total = (this.stmt(`SELECT COUNT(*) AS n FROM contact_email_ngrams g WHERE ${gramSql}`).get(...keys) as { n: number }).n;
      const ids = this
        .stmt(`SELECT g.contact_id FROM contact_email_ngrams g WHERE ${gramSql} ORDER BY g.created_at DESC, g.contact_id DESC LIMIT ? OFFSET ?`)
        .pluck()
        .all(...keys, limit, offset) as string[];
      return { total, rows: ids.length ? this.page({ teamId: filter.teamId, ids }, limit, 0) : [] };
    }
    // Other filters need each candidate's row: drive from the posting list (CROSS JOIN pins
    // the order), one primary-key probe per posting, no decryption.
    const { sql, params } = whereOf({ ...filter, ids: [] });
    const from = `contact_email_ngrams g CROSS JOIN contacts c ON c.id = g.contact_id`;
    const total = (this.stmt(`SELECT COUNT(*) AS n FROM ${from} WHERE ${gramSql} AND ${sql}`).get(...keys, ...params) as { n: number }).n;
    const rows = this
      .stmt(`SELECT c.* FROM ${from} WHERE ${gramSql} AND ${sql} ORDER BY g.created_at DESC, g.contact_id DESC LIMIT ? OFFSET ?`)
      .all(...keys, ...params, limit, offset) as ContactRow[];
    return { total, rows };
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

  delete(teamId: string, id: string): boolean {
    return this.stmt("DELETE FROM contacts WHERE id = ? AND team_id = ?").run(id, teamId).changes > 0;
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
    if (!filter.statuses?.length && !filter.tags?.length && !filter.grams?.length && !filter.ids && !filter.verification?.length) {
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
   * contacts (of one key id) that have the grams and pass the other filters (a superset:
   * callers confirm each by decrypting). Each gram's
   * posting list is read as one range of the (team_id, gram, created_at, contact_id) key,
   * and the lists are intersected here from the rarest (callers order them):
   * sequential reads instead of a random index probe per candidate and gram. Only the
   * intersection's rows are then read from the contacts table.
   */
  candidates(filter: ContactFilter, keyId: string): Array<{ id: string; email_ct: string; created_at: string }> {
    const postings = this.stmt("SELECT contact_id FROM contact_email_ngrams WHERE team_id = ? AND gram = ?").pluck();
    let ids: string[] | undefined;
    for (const gram of filter.grams ?? []) {
      // Few candidates left: confirming them (by decryption) is cheaper than reading the
      // commoner grams' long posting lists, and confirmation decides anyway.
      if (ids !== undefined && ids.length <= CONFIRM_DIRECTLY) break;
      const list = postings.all(filter.teamId, gramKey(gram)) as string[];
      if (ids === undefined) ids = list;
      else {
        const keep = new Set(list);
        ids = ids.filter((id) => keep.has(id));
      }
      if (ids.length === 0) return [];
    }
    if (!ids) return [];
    const { sql, params } = whereOf({ ...filter, grams: [], ids });
    const from = fromOf({ ...filter, ids });
    // `+c.key_id`: a filter on the looked-up row, never an index to search by.
    return this.stmt(`SELECT c.id, c.email_ct, c.created_at FROM ${from.sql} WHERE ${sql} AND +c.key_id = ?`).all(...from.params, ...params, keyId) as Array<{
      id: string;
      email_ct: string;
      created_at: string;
    }>;
  }

  /** How many contacts carry a blind gram: to drive the intersection from the rarest. */
  gramFrequency(teamId: string, gram: string, cap: number): number {
    return (
      this
        .stmt("SELECT COUNT(*) AS n FROM (SELECT 1 FROM contact_email_ngrams WHERE team_id = ? AND gram = ? LIMIT ?)")
        .get(teamId, gramKey(gram), cap) as { n: number }
    ).n;
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
