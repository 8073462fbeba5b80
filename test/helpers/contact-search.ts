import { expect } from "vitest";
import type { Services } from "../../src/services/index.js";
import { contactAad } from "../../src/services/contacts/contacts-encryption.js";
import { decodeBlock } from "../../src/store/contact-gram-postings.js";
import type { Db } from "../../src/store/db.js";
import { decodeSlot } from "../../src/store/gram-slots.js";

/** A contact list query with the defaults the API fills in. */
export const query = (q: Record<string, unknown> = {}) => ({ page: 1, limit: 20, ...q }) as never;

/**
 * The answer worked out here on its own: every contact of the workspace decrypted, then
 * filtered and ordered as docs/api.md says (substring of the trimmed, NFC, lower-cased
 * email; any of the tags; any of the statuses; newest first, then id descending).
 */
export function expectedIds(services: Services, teamId: string, q: { search: string; status?: string[]; tags?: string[] }): string[] {
  const keyring = services.keys.get();
  const fold = (s: string) => s.trim().normalize("NFC").toLowerCase();
  const rows = services.deps.db.prepare("SELECT id, email_ct, status, tags, created_at FROM contacts WHERE team_id = ?").all(teamId) as Array<{
    id: string;
    email_ct: string;
    status: string;
    tags: string;
    created_at: string;
  }>;
  return rows
    .filter((r) => fold(keyring.decrypt(r.email_ct, contactAad(teamId, r.id, "email"))).includes(fold(q.search)))
    .filter((r) => !q.status || q.status.includes(r.status))
    .filter((r) => !q.tags || (JSON.parse(r.tags) as string[]).some((tag) => q.tags!.includes(tag)))
    .sort((a, b) => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : -1))
    .map((r) => r.id);
}

/** Every page (of `limit`) of the indexed search equals the independent answer: ids, order and total. */
export function expectSameAsScan(services: Services, teamId: string, q: { search: string; status?: string[]; tags?: string[] }, limit = 4): number {
  const expected = expectedIds(services, teamId, q);
  for (let page = 1; page <= Math.max(1, Math.ceil(expected.length / limit)); page++) {
    const indexed = services.contacts.list(teamId, query({ ...q, page, limit }));
    expect(indexed.total, `${JSON.stringify(q)} total`).toBe(expected.length);
    expect(indexed.contacts.map((c) => c.id), `${JSON.stringify(q)} page ${page}`).toEqual(expected.slice((page - 1) * limit, page * limit));
  }
  return expected.length;
}

/**
 * Every stored posting, decoded from the packed blocks and the tail's slots (migration
 * 030): (workspace, gram as upper-case hex, seq).
 */
export function allPostings(db: Db): Array<{ teamId: string; gram: string; seq: number }> {
  const rows = db.prepare("SELECT team_id, hex(gram) AS gram, first, n, postings FROM contact_gram_postings").all() as Array<{
    team_id: string;
    gram: string;
    first: number;
    n: number;
    postings: Buffer;
  }>;
  const packed = rows.flatMap((r) => {
    const seqs: number[] = [];
    decodeBlock(r.first, r.n, r.postings, seqs);
    return seqs.map((seq) => ({ teamId: r.team_id, gram: r.gram, seq }));
  });
  const slots = db.prepare("SELECT team_id, grams FROM contact_gram_tail").all() as Array<{ team_id: string; grams: Buffer }>;
  const tail = slots.flatMap((r) => decodeSlot(r.grams).flatMap((e) => e.seqs.map((seq) => ({ teamId: r.team_id, gram: e.gram.toString("hex").toUpperCase(), seq }))));
  return [...packed, ...tail];
}

/** A contact's seq: its number in the gram postings. */
export const seqOf = (db: Db, id: string) => db.prepare("SELECT seq FROM contacts WHERE id = ?").pluck().get(id) as number;

