import { emailBlindIndex, emailBlindIndexesUnderEveryKey, emailGramHashes, GramHashCache } from "../../core/blind-index.js";
import { KeyringError, type Keyring } from "../../core/crypto.js";
import { AppError } from "../../core/errors.js";
import type { Contact, ContactStatus } from "../../core/schemas/contact.js";
import type { Verification } from "../../core/schemas/verification.js";
import { ContactsRepo, type ContactRow, type ContactWrite } from "../../store/contacts.js";
import type { Db } from "../../store/db.js";
import { idKeyedColumnSet, type EncryptedColumnSet } from "../key-rotation.js";

/** The encrypted columns of a contact and the field each holds. */
export const CONTACT_ENCRYPTED_FIELDS = { email_ct: "email", name_ct: "name", phone_ct: "phone" } as const;

/** Associated data of a contact field: a ciphertext moved to another workspace, row or column fails. */
export function contactAad(teamId: string, contactId: string, field: string): string {
  return `contacts/${teamId}/${contactId}/${field}`;
}

/** A contact's fields in the clear, as the service handles them. */
export interface PlainContact {
  email: string;
  name: string;
  phone: string | null;
  description: string | null;
  status: ContactStatus;
  tags: string[];
  timeZone: string | null;
}

/**
 * Contacts' field encryption: email, name and phone under AES-256-GCM with the contact's
 * place as associated data (workspace, contact, field), the email's blind index and its
 * blind 3/4/5-grams (docs/security.md). Always with the keyring as it is now: a rotation
 * run by another process brings a new current key.
 */
export class ContactCipher {
  private readonly gramCache = new GramHashCache();

  constructor(private readonly keys: { get(): Keyring }) {}

  /** An email's blind grams under `keyId` (default: the current key). */
  gramHashes(teamId: string, email: string, keyId?: string): string[] {
    return emailGramHashes(this.keys.get(), teamId, email, keyId, undefined, undefined, this.gramCache);
  }

  /** Everything stored for a contact, encrypted under the current key. CPU only: call before the transaction. */
  seal(teamId: string, id: string, plain: PlainContact, createdAt: string, updatedAt: string): ContactWrite {
    const keyring = this.keys.get();
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
        time_zone: plain.timeZone,
        key_id: keyring.currentId,
        created_at: createdAt,
        updated_at: updatedAt,
      },
      grams: this.gramHashes(teamId, plain.email),
      tags: plain.tags,
    };
  }

  /** A stored row as the API's Contact. A key that cannot decrypt it is the operator's problem: a 500 that says what to check. */
  open(row: ContactRow): Contact {
    const keyring = this.keys.get();
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
        timeZone: row.time_zone,
        verification: row.verification ? (JSON.parse(row.verification) as Verification) : null,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    } catch (err) {
      if (err instanceof KeyringError) {
        // Without any ciphertext or path in the message.
        throw new AppError("internal_error", `contact ${row.id} cannot be decrypted: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }

  decryptEmail(row: { id: string; email_ct: string }, teamId: string): string {
    return this.keys.get().decrypt(row.email_ct, contactAad(teamId, row.id, "email"));
  }

  /**
   * The blind grams a stored contact's email has under the key it was written with (what
   * its postings are), or undefined when it cannot be decrypted (its key is not loaded).
   */
  storedGrams(row: Pick<ContactRow, "id" | "team_id" | "email_ct" | "key_id">): string[] | undefined {
    try {
      return this.gramHashes(row.team_id, this.decryptEmail(row, row.team_id), row.key_id);
    } catch (err) {
      if (err instanceof KeyringError) return undefined;
      throw err;
    }
  }

  /** Blind indexes of an email under every loaded key (one, or two during a rotation). */
  blindIndexes(teamId: string, email: string): string[] {
    return emailBlindIndexesUnderEveryKey(this.keys.get(), teamId, email);
  }
}

/**
 * Contacts' encrypted columns for the key rotation. The blind index and the 3/4/5-grams are
 * keyed by the row's master key too (so retiring a leaked key also retires what it can
 * compute), hence recomputed with each re-encrypted row.
 */
export function contactsColumnSet(db: Db): EncryptedColumnSet {
  const repo = new ContactsRepo(db);
  return idKeyedColumnSet({
    name: "contacts",
    table: "contacts",
    columns: Object.keys(CONTACT_ENCRYPTED_FIELDS),
    // seq: the contact's number in the gram postings.
    contextColumns: ["team_id", "seq"],
    aad: (row, column) => contactAad(row.team_id!, row.id!, CONTACT_ENCRYPTED_FIELDS[column as keyof typeof CONTACT_ENCRYPTED_FIELDS]),
    afterRewrite(row, plaintexts, keyring) {
      const email = plaintexts.email_ct!;
      const teamId = row.team_id!;
      repo.setBlindIndex(row.id!, emailBlindIndex(keyring, teamId, email));
      // `row.key_id` is still the old key: its grams are the postings to replace.
      const seq = Number(row.seq);
      repo.replaceGrams(teamId, row.id!, seq, emailGramHashes(keyring, teamId, email, row.key_id!), emailGramHashes(keyring, teamId, email));
    },
  });
}
