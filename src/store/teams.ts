import { StatementCache, type Db } from "./db.js";

export interface TeamRow {
  id: string;
  name: string;
  slug: string;
  is_beta_tester: number;
  plan: string;
  daily_searches_override: number | null;
  max_contacts_override: number | null;
  created_at: string;
}

export interface MembershipRow {
  team_id: string;
  user_id: string;
  role: "owner" | "admin" | "member";
  created_at: string;
}

export type TeamWithRole = TeamRow & { role: MembershipRow["role"]; joined_at: string };

export class TeamsRepo {
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  insert(row: Omit<TeamRow, "daily_searches_override" | "max_contacts_override">): void {
    this.db
      .prepare("INSERT INTO teams (id, name, slug, is_beta_tester, plan, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(row.id, row.name, row.slug, row.is_beta_tester, row.plan, row.created_at);
  }

  byId(id: string): TeamRow | undefined {
    return this.statements.get("SELECT * FROM teams WHERE id = ?").get(id) as TeamRow | undefined;
  }

  bySlug(slug: string): TeamRow | undefined {
    return this.db.prepare("SELECT * FROM teams WHERE slug = ?").get(slug) as TeamRow | undefined;
  }

  slugExists(slug: string): boolean {
    return this.db.prepare("SELECT 1 FROM teams WHERE slug = ?").get(slug) !== undefined;
  }

  setPlan(teamId: string, plan: string, dailySearchesOverride: number | null, maxContactsOverride: number | null): void {
    this.db
      .prepare("UPDATE teams SET plan = ?, daily_searches_override = ?, max_contacts_override = ? WHERE id = ?")
      .run(plan, dailySearchesOverride, maxContactsOverride, teamId);
  }

  /** Every workspace, oldest first, with its member count. */
  all(): Array<TeamRow & { member_count: number }> {
    return this.db
      .prepare("SELECT t.*, (SELECT count(*) FROM memberships m WHERE m.team_id = t.id) AS member_count FROM teams t ORDER BY t.created_at, t.rowid")
      .all() as Array<TeamRow & { member_count: number }>;
  }

  rename(teamId: string, name: string, slug: string): void {
    this.db.prepare("UPDATE teams SET name = ?, slug = ? WHERE id = ?").run(name, slug, teamId);
  }

  /** A workspace's members in the order they joined. */
  members(teamId: string): Array<MembershipRow & { email: string; name: string }> {
    return this.db
      .prepare(
        `SELECT m.*, u.email AS email, u.name AS name FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.team_id = ? ORDER BY m.created_at, m.rowid`,
      )
      .all(teamId) as Array<MembershipRow & { email: string; name: string }>;
  }

  /**
   * Delete a workspace and what it holds: its rows cascade from `teams` (memberships,
   * contacts, campaigns, domains, keys, …); the delivery throttle's log has no foreign key
   * (it outlives its executions), so its rows are deleted here.
   */
  delete(teamId: string): void {
    this.db.prepare("DELETE FROM delivery_attempts WHERE team_id = ?").run(teamId);
    this.db.prepare("DELETE FROM teams WHERE id = ?").run(teamId);
  }

  removeMember(teamId: string, userId: string): void {
    this.db.prepare("DELETE FROM memberships WHERE team_id = ? AND user_id = ?").run(teamId, userId);
  }

  addMember(row: MembershipRow): void {
    this.db
      .prepare(
        `INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(team_id, user_id) DO UPDATE SET role = excluded.role`,
      )
      .run(row.team_id, row.user_id, row.role, row.created_at);
  }

  membership(teamId: string, userId: string): MembershipRow | undefined {
    return this.statements.get("SELECT * FROM memberships WHERE team_id = ? AND user_id = ?").get(teamId, userId) as
      | MembershipRow
      | undefined;
  }

  /** The user's workspaces in the order they joined them. */
  forUser(userId: string): TeamWithRole[] {
    return this.db
      .prepare(
        `SELECT t.*, m.role AS role, m.created_at AS joined_at FROM memberships m JOIN teams t ON t.id = m.team_id
         WHERE m.user_id = ? ORDER BY m.created_at, m.rowid`,
      )
      .all(userId) as TeamWithRole[];
  }
}
