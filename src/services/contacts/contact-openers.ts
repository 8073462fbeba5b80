import type { Keyring } from "../../core/crypto.js";
import { newId } from "../../core/ids.js";
import type { Db } from "../../store/db.js";
import { ContactOpenersRepo, type ContactOpenerRow } from "../../store/contact-openers.js";
import { idKeyedColumnSet, type EncryptedColumnSet } from "../key-rotation.js";

/**
 * Openers as stored: encrypted like the contact data they are made of (docs/security.md),
 * the AAD binding each to its workspace, campaign and contact so a ciphertext moved to
 * another row does not decrypt.
 */
const aad = (row: Pick<ContactOpenerRow, "team_id" | "campaign_id" | "contact_id">) => `contact_openers/${row.team_id}/${row.campaign_id}/${row.contact_id}/opener`;

export interface StoredOpener {
  contactId: string;
  opener: string;
  source: "model" | "user";
  createdAt: string;
  updatedAt: string;
}

export class ContactOpenerStore {
  private readonly repo: ContactOpenersRepo;

  constructor(private readonly deps: { db: Db; keys: { get(): Keyring } }) {
    this.repo = new ContactOpenersRepo(deps.db);
  }

  private open(row: ContactOpenerRow): StoredOpener {
    return {
      contactId: row.contact_id,
      opener: this.deps.keys.get().decrypt(row.opener_ct, aad(row)),
      source: row.source,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  /** Writes one opener in its own transaction (a batch keeps what it finished if it stops half-way). */
  put(teamId: string, campaignId: string, contactId: string, opener: string, source: "model" | "user", now: string): void {
    const keyring = this.deps.keys.get();
    const key = { team_id: teamId, campaign_id: campaignId, contact_id: contactId };
    this.deps.db
      .transaction(() =>
        this.repo.upsert({ id: newId("opn"), ...key, opener_ct: keyring.encrypt(opener, aad(key)), key_id: keyring.currentId, source, created_at: now, updated_at: now }),
      )
      .immediate();
  }

  get(teamId: string, campaignId: string, contactId: string): StoredOpener | undefined {
    const row = this.repo.get(teamId, campaignId, contactId);
    return row ? this.open(row) : undefined;
  }

  page(teamId: string, campaignId: string, limit: number, offset: number): { openers: StoredOpener[]; total: number } {
    const { rows, total } = this.repo.page(teamId, campaignId, limit, offset);
    return { openers: rows.map((r) => this.open(r)), total };
  }

  missing(campaignId: string, contactIds: readonly string[]): string[] {
    return this.repo.missing(campaignId, contactIds);
  }
}

/** Openers for the key rotation (`outreach admin keys rotate`). */
export function contactOpenersColumnSet(): EncryptedColumnSet {
  return idKeyedColumnSet({
    name: "contact openers",
    table: "contact_openers",
    columns: ["opener_ct"],
    contextColumns: ["team_id", "campaign_id", "contact_id"],
    aad: (row) => aad(row as Pick<ContactOpenerRow, "team_id" | "campaign_id" | "contact_id">),
  });
}
