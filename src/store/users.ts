import { StatementCache, type Db } from "./db.js";

export interface UserRow {
  id: string;
  name: string;
  email: string;
  active_team_id: string | null;
  created_at: string;
}

export class UsersRepo {
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  insert(row: Omit<UserRow, "active_team_id"> & { active_team_id?: string | null }): void {
    this.db
      .prepare("INSERT INTO users (id, name, email, active_team_id, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(row.id, row.name, row.email, row.active_team_id ?? null, row.created_at);
  }

  byId(id: string): UserRow | undefined {
    return this.statements.get("SELECT * FROM users WHERE id = ?").get(id) as UserRow | undefined;
  }

  byEmail(email: string): UserRow | undefined {
    return this.db.prepare("SELECT * FROM users WHERE email = ?").get(email) as UserRow | undefined;
  }

  setActiveTeam(userId: string, teamId: string | null): void {
    this.db.prepare("UPDATE users SET active_team_id = ? WHERE id = ?").run(teamId, userId);
  }

  /** Every user, oldest first, with how many workspaces each belongs to. */
  all(): Array<UserRow & { team_count: number }> {
    return this.db
      .prepare("SELECT u.*, (SELECT count(*) FROM memberships m WHERE m.user_id = u.id) AS team_count FROM users u ORDER BY u.created_at, u.rowid")
      .all() as Array<UserRow & { team_count: number }>;
  }

  rename(id: string, name: string, email: string): void {
    this.db.prepare("UPDATE users SET name = ?, email = ? WHERE id = ?").run(name, email, id);
  }

  /** Memberships and personal tokens go with the user (ON DELETE CASCADE). */
  delete(id: string): void {
    this.db.prepare("DELETE FROM users WHERE id = ?").run(id);
  }

  count(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM users").get() as { n: number }).n;
  }
}
