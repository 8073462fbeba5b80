import { StatementCache, type Db } from "./db.js";

export interface PersonalTokenRow {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  display_prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export class PersonalTokensRepo {
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  insert(row: Omit<PersonalTokenRow, "last_used_at" | "revoked_at">): void {
    this.db
      .prepare(
        `INSERT INTO personal_tokens (id, user_id, name, token_hash, display_prefix, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.id, row.user_id, row.name, row.token_hash, row.display_prefix, row.created_at, row.expires_at);
  }

  byHash(hash: string): PersonalTokenRow | undefined {
    return this.statements.get("SELECT * FROM personal_tokens WHERE token_hash = ?").get(hash) as PersonalTokenRow | undefined;
  }

  byId(id: string): PersonalTokenRow | undefined {
    return this.db.prepare("SELECT * FROM personal_tokens WHERE id = ?").get(id) as PersonalTokenRow | undefined;
  }

  forUser(userId: string): PersonalTokenRow[] {
    return this.db.prepare("SELECT * FROM personal_tokens WHERE user_id = ? ORDER BY created_at").all(userId) as PersonalTokenRow[];
  }

  /** Record use, at most once per `minIntervalMs`: no write on every request. */
  touch(id: string, now: string, notUsedSince: string): void {
    this.statements.get("UPDATE personal_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)")
      .run(now, id, notUsedSince);
  }

  revoke(id: string, now: string): boolean {
    return this.db.prepare("UPDATE personal_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now, id).changes === 1;
  }
}
