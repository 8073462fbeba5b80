import { newId } from "../../src/core/ids.js";
import type { Db } from "../../src/store/db.js";

/**
 * A minimal contact row through SQL, for features that only need a contact to exist.
 * The contacts service is built in parallel; the lead switches this to it at merge.
 * Encrypted columns hold placeholder strings (nothing here decrypts them).
 */
export function insertContact(db: Db, teamId: string, options: { status?: "active" | "unsubscribed" } = {}): string {
  const id = newId("ct");
  const now = "2026-11-22T09:00:00.000Z";
  db.prepare(
    `INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, status, key_id, created_at, updated_at)
     VALUES (?, ?, 'placeholder-ciphertext', ?, 'placeholder-ciphertext', ?, 'k1', ?, ?)`,
  ).run(id, teamId, `bidx-${id}`, options.status ?? "active", now, now);
  return id;
}
