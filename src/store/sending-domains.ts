import type { Db } from "./db.js";

export interface SendingDomainRow {
  id: string;
  team_id: string;
  domain: string;
  sender_email: string;
  sender_name: string;
  status: "pending" | "verified" | "failed";
  ownership_token: string;
  ownership_verified_at: string | null;
  dkim_selector: string;
  dkim_private_key_ct: string;
  /** The opt-in Ed25519 key (RFC 8463): its selector and encrypted private key, or null. */
  dkim_ed25519_selector: string | null;
  dkim_ed25519_private_key_ct: string | null;
  key_id: string;
  /** JSON array of DnsRecord. */
  dns_records: string;
  dmarc_status: "missing" | "none" | "quarantine" | "reject" | "invalid" | null;
  last_checked_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export type CheckResultRow = Pick<
  SendingDomainRow,
  "status" | "ownership_verified_at" | "dns_records" | "dmarc_status" | "last_checked_at" | "last_error" | "updated_at"
>;

/**
 * Where the DKIM private key's ciphertext lives and what it is bound to, for the
 * master-key rotation (`outreach admin keys rotate`), which re-encrypts every registered
 * column set row by row. The associated data must match `dkimKeyAad` exactly.
 */
export const DKIM_KEY_COLUMN = "dkim_private_key_ct";
export const DKIM_ED25519_KEY_COLUMN = "dkim_ed25519_private_key_ct";

/** The associated data of a DKIM key's ciphertext: the row and the column, so neither key can stand in for the other. */
export function dkimKeyAad(row: { team_id: string; id: string }, column: string = DKIM_KEY_COLUMN): string {
  return `sending_domains|${row.team_id}|${row.id}|${column}`;
}

export const SENDING_DOMAIN_ENCRYPTED_COLUMNS = {
  table: "sending_domains",
  idColumn: "id",
  keyIdColumn: "key_id",
  columns: [DKIM_KEY_COLUMN, DKIM_ED25519_KEY_COLUMN],
  /** Extra columns `aad` reads. */
  aadColumns: ["team_id", "id"],
  aad: (row: { team_id: string; id: string }, column: string = DKIM_KEY_COLUMN) => dkimKeyAad(row, column),
} as const;

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "SQLITE_CONSTRAINT_UNIQUE";
}

export class SendingDomainsRepo {
  constructor(private readonly db: Db) {}

  /** Throws a SQLITE_CONSTRAINT_UNIQUE error when the workspace already has the domain. */
  insert(row: SendingDomainRow): void {
    this.db
      .prepare(
        `INSERT INTO sending_domains (id, team_id, domain, sender_email, sender_name, status, ownership_token,
           ownership_verified_at, dkim_selector, dkim_private_key_ct, dkim_ed25519_selector, dkim_ed25519_private_key_ct,
           key_id, dns_records, dmarc_status, last_checked_at, last_error, created_at, updated_at)
         VALUES (@id, @team_id, @domain, @sender_email, @sender_name, @status, @ownership_token,
           @ownership_verified_at, @dkim_selector, @dkim_private_key_ct, @dkim_ed25519_selector, @dkim_ed25519_private_key_ct,
           @key_id, @dns_records, @dmarc_status,
           @last_checked_at, @last_error, @created_at, @updated_at)`,
      )
      .run(row);
  }

  /** The workspace's domains, oldest first (the default domain is the oldest verified one). */
  forTeam(teamId: string): SendingDomainRow[] {
    return this.db
      .prepare("SELECT * FROM sending_domains WHERE team_id = ? ORDER BY created_at, id")
      .all(teamId) as SendingDomainRow[];
  }

  /** A domain of this workspace; another workspace's id is indistinguishable from an unknown one. */
  byIdInTeam(teamId: string, id: string): SendingDomainRow | undefined {
    return this.db.prepare("SELECT * FROM sending_domains WHERE team_id = ? AND id = ?").get(teamId, id) as
      | SendingDomainRow
      | undefined;
  }

  existsInTeam(teamId: string, domain: string): boolean {
    return this.db.prepare("SELECT 1 FROM sending_domains WHERE team_id = ? AND domain = ?").get(teamId, domain) !== undefined;
  }

  /** Store a check's outcome; false when the domain was deleted meanwhile. */
  saveCheck(teamId: string, id: string, result: CheckResultRow): boolean {
    const info = this.db
      .prepare(
        `UPDATE sending_domains SET status = @status, ownership_verified_at = @ownership_verified_at,
           dns_records = @dns_records, dmarc_status = @dmarc_status, last_checked_at = @last_checked_at,
           last_error = @last_error, updated_at = @updated_at
         WHERE team_id = @team_id AND id = @id`,
      )
      .run({ ...result, team_id: teamId, id });
    return info.changes === 1;
  }

  delete(teamId: string, id: string): boolean {
    return this.db.prepare("DELETE FROM sending_domains WHERE team_id = ? AND id = ?").run(teamId, id).changes === 1;
  }
}
