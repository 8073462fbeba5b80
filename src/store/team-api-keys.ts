import type { Db } from "./db.js";

export interface TeamApiKeyRow {
  id: string;
  team_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  /** JSON array of scope names. */
  scopes: string;
  created_by: string | null;
  created_at: string;
  rotated_at: string | null;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export class TeamApiKeysRepo {
  // Every request with a team API key runs these two: prepared once, not per call.
  private readonly byHashStatement;
  private readonly touchStatement;

  constructor(private readonly db: Db) {
    this.byHashStatement = db.prepare<[string], TeamApiKeyRow>("SELECT * FROM team_api_keys WHERE key_hash = ?");
    this.touchStatement = db.prepare<[string, string, string]>(
      "UPDATE team_api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
    );
  }

  insert(row: Omit<TeamApiKeyRow, "rotated_at" | "last_used_at" | "revoked_at">): void {
    this.db
      .prepare(
        `INSERT INTO team_api_keys (id, team_id, name, key_hash, key_prefix, scopes, created_by, created_at, expires_at)
         VALUES (@id, @team_id, @name, @key_hash, @key_prefix, @scopes, @created_by, @created_at, @expires_at)`,
      )
      .run(row);
  }

  byHash(hash: string): TeamApiKeyRow | undefined {
    return this.byHashStatement.get(hash);
  }

  /** Scoped by workspace: another workspace's key reads as unknown. */
  byId(teamId: string, id: string): TeamApiKeyRow | undefined {
    return this.db.prepare("SELECT * FROM team_api_keys WHERE id = ? AND team_id = ?").get(id, teamId) as TeamApiKeyRow | undefined;
  }

  forTeam(teamId: string): TeamApiKeyRow[] {
    return this.db.prepare("SELECT * FROM team_api_keys WHERE team_id = ? ORDER BY created_at DESC, id DESC").all(teamId) as TeamApiKeyRow[];
  }

  countUsable(teamId: string, now: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM team_api_keys WHERE team_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)")
        .get(teamId, now) as { n: number }
    ).n;
  }

  /**
   * Rotation in one guarded statement: the hash is swapped only while the key is neither
   * revoked nor expired nor rotated after `notRotatedSince`, and the previous raw key stops
   * matching at that instant.
   */
  rotate(teamId: string, id: string, hash: string, prefix: string, now: string, notRotatedSince: string): TeamApiKeyRow | undefined {
    return this.db
      .prepare(
        `UPDATE team_api_keys SET key_hash = ?, key_prefix = ?, rotated_at = ?, last_used_at = NULL
         WHERE id = ? AND team_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
           AND (rotated_at IS NULL OR rotated_at <= ?) RETURNING *`,
      )
      .get(hash, prefix, now, id, teamId, now, notRotatedSince) as TeamApiKeyRow | undefined;
  }

  revoke(teamId: string, id: string, now: string): TeamApiKeyRow | undefined {
    return this.db
      .prepare("UPDATE team_api_keys SET revoked_at = ? WHERE id = ? AND team_id = ? AND revoked_at IS NULL RETURNING *")
      .get(now, id, teamId) as TeamApiKeyRow | undefined;
  }

  /** Record use, at most once per interval: no write on every request. */
  touch(id: string, now: string, notUsedSince: string): void {
    this.touchStatement.run(now, id, notUsedSince);
  }
}
