import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Keyring } from "../../core/crypto.js";
import type { Db } from "../../store/db.js";
import { INSTANCE_SECRET_COLUMNS, InstanceSecretsRepo } from "../../store/instance-secrets.js";
import { columnSetOver, type EncryptedColumnSet } from "../key-rotation.js";

const SECRET_NAME = "unsubscribe-token-key";
const VERSION = 1;

export interface UnsubscribeTarget {
  campaignId: string;
  contactId: string;
}

/**
 * Unsubscribe tokens (the `/u/{token}` of List-Unsubscribe): per contact and campaign,
 * signed, revealing nothing, never expiring. A token is AES-256-GCM of `campaignId
 * contactId` under a key of its own: the GCM tag makes it unforgeable, the encryption
 * hides both ids. That key is random, stored once per data directory encrypted with the
 * master key (`instance_secrets`), and re-encrypted — never replaced — by a master-key
 * rotation, so links in mail already sent keep working after a rotation.
 */
export class UnsubscribeTokens {
  private key: Buffer | undefined;
  private readonly repo: InstanceSecretsRepo;

  constructor(private readonly deps: { db: Db; keys: { get(): Keyring } }) {
    this.repo = new InstanceSecretsRepo(deps.db);
  }

  private secret(): Buffer {
    if (this.key) return this.key;
    const keyring = this.deps.keys.get();
    const aad = INSTANCE_SECRET_COLUMNS.aad(SECRET_NAME);
    let row = this.repo.byName(SECRET_NAME);
    if (!row) {
      const fresh = keyring.encrypt(randomBytes(32).toString("base64"), aad);
      row = this.deps.db.transaction(() => this.repo.insertOnce({ name: SECRET_NAME, value_ct: fresh, key_id: keyring.currentId })).immediate();
    }
    this.key = Buffer.from(keyring.decrypt(row.value_ct, aad), "base64");
    return this.key;
  }

  issue(target: UnsubscribeTarget): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.secret(), iv);
    const body = Buffer.concat([cipher.update(`${target.campaignId} ${target.contactId}`, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /** The target of a token, or undefined for anything that is not one of ours (no reason given: no oracle). */
  read(token: string): UnsubscribeTarget | undefined {
    if (!/^[A-Za-z0-9_-]{40,200}$/.test(token)) return undefined;
    const raw = Buffer.from(token, "base64url");
    if (raw.length < 1 + 12 + 16 + 3 || raw[0] !== VERSION) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.secret(), raw.subarray(1, 13));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const plain = Buffer.concat([decipher.update(raw.subarray(13, raw.length - 16)), decipher.final()]).toString("utf8");
      const [campaignId, contactId, ...rest] = plain.split(" ");
      if (!campaignId || !contactId || rest.length) return undefined;
      return { campaignId, contactId };
    } catch {
      return undefined;
    }
  }
}

/** The unsubscribe-token key for `outreach admin keys rotate`: re-encrypted, its value unchanged. */
export function instanceSecretsColumnSet(): EncryptedColumnSet {
  const shape = INSTANCE_SECRET_COLUMNS;
  return columnSetOver(shape, {
    name: "instance secrets",
    contextColumns: [],
    aad: (row) => shape.aad(row.name!),
  });
}
