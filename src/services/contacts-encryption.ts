import { emailBlindIndex, emailGramHashes } from "../core/blind-index.js";
import { ContactsRepo } from "../store/contacts.js";
import type { Db } from "../store/db.js";
import { CONTACT_ENCRYPTED_FIELDS, contactAad } from "./contacts.js";
import type { EncryptedColumnSet } from "./key-rotation.js";

/**
 * Contacts' encrypted columns for the key rotation. The blind index and the 3/4/5-grams are
 * keyed by the row's master key too (so retiring a leaked key also retires what it can
 * compute), hence recomputed with each re-encrypted row.
 */
export function contactsColumnSet(db: Db): EncryptedColumnSet {
  const repo = new ContactsRepo(db);
  return {
    name: "contacts",
    table: "contacts",
    idColumn: "id",
    keyIdColumn: "key_id",
    columns: Object.keys(CONTACT_ENCRYPTED_FIELDS),
    // created_at: the gram postings carry it (their newest-first order).
    contextColumns: ["team_id", "created_at"],
    aad: (row, column) => contactAad(row.team_id!, row.id!, CONTACT_ENCRYPTED_FIELDS[column as keyof typeof CONTACT_ENCRYPTED_FIELDS]),
    afterRewrite(row, plaintexts, keyring) {
      const email = plaintexts.email_ct!;
      repo.setBlindIndex(row.id!, emailBlindIndex(keyring, row.team_id!, email));
      repo.replaceGrams(row.team_id!, row.id!, row.created_at!, emailGramHashes(keyring, row.team_id!, email));
    },
  };
}
