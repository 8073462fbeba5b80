import type { Db } from "./db.js";

export interface EnrichmentCacheRow {
  domain: string;
  outcome: "found" | "failed";
  facts: string | null;
  failure: string | null;
  fetched_at: string;
  expires_at: string;
}

/** Website facts per registrable domain, with an expiry per row (successes days, failures hours). */
export class EnrichmentCacheRepo {
  constructor(private readonly db: Db) {}

  /** The live entry for a domain, if any (expired rows are as good as absent). */
  get(domain: string, now: string): EnrichmentCacheRow | undefined {
    return this.db.prepare("SELECT * FROM enrichment_cache WHERE domain = ? AND expires_at > ?").get(domain, now) as EnrichmentCacheRow | undefined;
  }

  put(row: EnrichmentCacheRow): void {
    this.db
      .prepare(
        `INSERT INTO enrichment_cache (domain, outcome, facts, failure, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (domain) DO UPDATE SET outcome = excluded.outcome, facts = excluded.facts, failure = excluded.failure,
           fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`,
      )
      .run(row.domain, row.outcome, row.facts, row.failure, row.fetched_at, row.expires_at);
  }

  /** A failure never overwrites a live success (a site that is down for an hour keeps its facts). */
  putFailure(domain: string, failure: string, now: string, expiresAt: string): void {
    this.db
      .prepare(
        `INSERT INTO enrichment_cache (domain, outcome, facts, failure, fetched_at, expires_at) VALUES (?, 'failed', NULL, ?, ?, ?)
         ON CONFLICT (domain) DO UPDATE SET outcome = 'failed', facts = NULL, failure = excluded.failure,
           fetched_at = excluded.fetched_at, expires_at = excluded.expires_at
         WHERE enrichment_cache.outcome = 'failed' OR enrichment_cache.expires_at <= excluded.fetched_at`,
      )
      .run(domain, failure, now, expiresAt);
  }

  deleteExpired(now: string): number {
    return this.db.prepare("DELETE FROM enrichment_cache WHERE expires_at <= ?").run(now).changes;
  }
}
