import type { Migration } from "./migration.js";

/**
 * Sending domains (endpoints 5-8; docs/api.md, "Sending domains").
 *
 * - `dkim_private_key_ct`: the domain's DKIM private key (PKCS#8 PEM), AES-256-GCM with
 *   associated data binding it to workspace, domain id and column; `key_id` is the master
 *   key it was written with, so a key rotation finds the rows it still has to re-encrypt.
 *   The public key is published in DNS anyway and is kept in clear inside `dns_records`.
 * - `dns_records`: JSON array of the records to publish with the last check's per-record
 *   status; fixed at creation (selector, return-path target) so a change of the
 *   operator's settings never silently invalidates what a user already published.
 * - One domain once per workspace; two workspaces may each claim one (each proves it with
 *   its own ownership token).
 */
export const sendingDomains: Migration = {
  name: "sending domains: DNS records with per-record status, encrypted DKIM keys",
  up(db) {
    db.exec(`
      CREATE TABLE sending_domains (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        domain TEXT NOT NULL CHECK (length(domain) BETWEEN 3 AND 253),
        sender_email TEXT NOT NULL,
        sender_name TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed')),
        ownership_token TEXT NOT NULL,
        ownership_verified_at TEXT,
        dkim_selector TEXT NOT NULL,
        dkim_private_key_ct TEXT NOT NULL,
        key_id TEXT NOT NULL,
        dns_records TEXT NOT NULL CHECK (json_valid(dns_records)),
        dmarc_status TEXT CHECK (dmarc_status IN ('missing', 'none', 'quarantine', 'reject', 'invalid')),
        last_checked_at TEXT,
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (team_id, domain)
      ) STRICT;
      CREATE INDEX sending_domains_by_team_created ON sending_domains(team_id, created_at, id);
      CREATE INDEX sending_domains_by_key ON sending_domains(key_id);
    `);
  },
};
