import { emailGramHashes, GRAM_SIZE, MAX_GRAM_SIZE } from "../../core/blind-index.js";
import { KeyringError, type Keyring } from "../../core/crypto.js";
import { ContactsRepo } from "../../store/contacts.js";
import type { Db } from "../../store/db.js";
import { contactAad } from "./contacts-encryption.js";

/**
 * Computes the 4/5-grams of contacts written before they were indexed (migration 012
 * lists them; it has no key to read the emails): each is decrypted (outside the write
 * transaction) and its 4/5-grams added, one immediate transaction per batch with the
 * batch's postings added in key order, skipping a row changed in between (its update
 * or re-encryption wrote every gram already). `openInstance` runs it when it opens a data
 * directory (a no-op once nothing is listed); searches are exact before, during and after
 * (a workspace with listed rows searches its trigrams). A row whose key is not loaded stays
 * listed and is counted as failed.
 */
export function backfillContactNgrams(deps: { db: Db; keys: { get(): Keyring } }, batchSize = 5000): { done: number; failed: number } {
  const repo = new ContactsRepo(deps.db);
  const keyring = deps.keys.get();
  let done = 0;
  let failed = 0;
  let afterId = "";
  for (;;) {
    const batch = repo.ngramBackfillBatch(afterId, batchSize);
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    const prepared: Array<{ teamId: string; contactId: string; seq: number; emailCt: string; grams: string[] }> = [];
    for (const row of batch) {
      try {
        const email = keyring.decrypt(row.email_ct, contactAad(row.team_id, row.id, "email"));
        // Its trigrams are there already (copied by the migration): only the 4/5-grams.
        const grams = emailGramHashes(keyring, row.team_id, email, row.key_id, MAX_GRAM_SIZE, GRAM_SIZE + 1);
        prepared.push({ teamId: row.team_id, contactId: row.id, seq: row.seq, emailCt: row.email_ct, grams });
      } catch (err) {
        if (!(err instanceof KeyringError)) throw err;
        failed++;
      }
    }
    done += deps.db.transaction(() => repo.completeBackfilledGrams(prepared)).immediate();
  }
  return { done, failed };
}
