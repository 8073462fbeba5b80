import { emailBlindIndex, emailBlindIndexesUnderEveryKey } from "../../core/blind-index.js";
import type { Keyring } from "../../core/crypto.js";
import { newId } from "../../core/ids.js";
import type { Db } from "../../store/db.js";
import { SuppressionsRepo } from "../../store/suppressions.js";
import { idKeyedColumnSet, type EncryptedColumnSet } from "../key-rotation.js";

const aad = (teamId: string, id: string) => `email_suppressions/${teamId}/${id}/email`;

/**
 * A workspace's suppression list: addresses that unsubscribed or bounced. It outlives the
 * contact, so deleting a contact and importing the same address again (from the next lead
 * search, say) never mails someone who opted out. Addresses are stored like contacts'
 * emails: encrypted, found by a keyed blind index (docs/security.md).
 */
export class SuppressionList {
  private readonly repo: SuppressionsRepo;

  constructor(private readonly deps: { db: Db; keys: { get(): Keyring } }) {
    this.repo = new SuppressionsRepo(deps.db);
  }

  /** Call inside the caller's transaction. */
  add(teamId: string, email: string, reason: "unsubscribed" | "bounced", now: string): void {
    const keyring = this.deps.keys.get();
    const id = newId("sup");
    this.repo.add({
      id,
      team_id: teamId,
      email_bidx: emailBlindIndex(keyring, teamId, email),
      email_ct: keyring.encrypt(email, aad(teamId, id)),
      key_id: keyring.currentId,
      reason,
      created_at: now,
    });
  }

  has(teamId: string, email: string): boolean {
    return this.repo.anyOf(teamId, emailBlindIndexesUnderEveryKey(this.deps.keys.get(), teamId, email));
  }
}

/** Suppressed addresses for the key rotation: re-encrypted, their blind index recomputed. */
export function suppressionsColumnSet(db: Db): EncryptedColumnSet {
  const repo = new SuppressionsRepo(db);
  return idKeyedColumnSet({
    name: "email suppressions",
    table: "email_suppressions",
    columns: ["email_ct"],
    contextColumns: ["team_id"],
    aad: (row) => aad(row.team_id!, row.id!),
    afterRewrite(row, plaintexts, keyring) {
      repo.setBlindIndex(row.id!, emailBlindIndex(keyring, row.team_id!, plaintexts.email_ct!));
    },
  });
}
