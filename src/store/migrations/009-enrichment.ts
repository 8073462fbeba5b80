import type { Migration } from "./migration.js";

/**
 * Website enrichment.
 *
 * - `enrichment_cache`: what a business website told us, per registrable domain (the
 *   facts are public web data, so the cache is shared by all workspaces). `outcome`
 *   `found` rows keep the facts for days, `failed` rows (unreachable, refused) for hours.
 * - `enrichment_retry_tokens`: single-use tokens of endpoint 2, bound to a workspace,
 *   with the pending leads they cover (JSON). Redeemed by one guarded UPDATE.
 */
export const enrichment: Migration = {
  name: "enrichment: per-domain website cache and single-use retry tokens",
  up(db) {
    db.exec(`
      CREATE TABLE enrichment_cache (
        domain TEXT PRIMARY KEY,
        outcome TEXT NOT NULL CHECK (outcome IN ('found', 'failed')),
        facts TEXT,
        failure TEXT,
        fetched_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        CHECK ((outcome = 'found') = (facts IS NOT NULL))
      ) STRICT;
      CREATE INDEX enrichment_cache_by_expiry ON enrichment_cache(expires_at);

      CREATE TABLE enrichment_retry_tokens (
        token TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        leads TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
      ) STRICT;
      CREATE INDEX enrichment_retry_tokens_by_expiry ON enrichment_retry_tokens(expires_at);
      CREATE INDEX enrichment_retry_tokens_by_team ON enrichment_retry_tokens(team_id);
    `);
  },
};
