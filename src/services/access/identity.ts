import type { Clock } from "../../core/clock.js";
import { badRequest, conflict, notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { issueToken } from "../../core/tokens.js";
import type { Role, Workspace } from "../../core/schemas/team.js";
import type { User } from "../../core/schemas/user.js";
import type { Db } from "../../store/db.js";
import { PersonalTokensRepo } from "../../store/personal-tokens.js";
import { TeamsRepo, type TeamRow } from "../../store/teams.js";
import { UsersRepo, type UserRow } from "../../store/users.js";
import type { PlanService } from "./plans.js";
import type { ServiceDeps } from "../deps.js";

export const toUser = (row: UserRow): User => ({ id: row.id, name: row.name, email: row.email });

export const toWorkspace = (team: TeamRow, role: Role): Workspace => ({
  id: team.id,
  name: team.name,
  slug: team.slug,
  role,
  isBetaTester: team.is_beta_tester === 1,
});

/** `Acme Dental GmbH` → `acme-dental-gmbh`; accents folded, at most 48 characters. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/g, "");
  return slug || "team";
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Why `email` (trimmed) is not acceptable for a user, or undefined when it is (also what `init`'s prompt says before asking again). */
export function emailProblem(email: string): string | undefined {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > 254) return `email ${JSON.stringify(trimmed)} is not a valid email address`;
  return undefined;
}

/** Why a user's or a workspace's name (trimmed) is not acceptable, or undefined when it is. */
export function nameProblem(name: string, what = "name"): string | undefined {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) return `${what} must be 1 to 200 characters long`;
  return undefined;
}

/** A user's name and email, trimmed; 400 naming the one that is not acceptable. */
function checkedPerson(input: { name: string; email: string }): { name: string; email: string } {
  const problem = nameProblem(input.name) ?? emailProblem(input.email);
  if (problem) throw badRequest(problem);
  return { name: input.name.trim(), email: input.email.trim() };
}

/** What a data directory initialised on first use is given (and how `init` recognises one to adopt). */
const DEFAULT_EMAIL_DOMAIN = "localhost.localdomain";
const DEFAULT_TEAM_NAME = "Personal";

/**
 * Users, workspaces, memberships and personal access tokens: what `outreach init` and
 * `outreach admin` manage. API routes read through AuthService and TeamService.
 */
export class IdentityService {
  readonly users: UsersRepo;
  readonly teams: TeamsRepo;
  readonly tokens: PersonalTokensRepo;

  private readonly db: Db;
  private readonly clock: Clock;
  private readonly plans: PlanService;

  constructor(deps: Pick<ServiceDeps, "db" | "clock"> & { plans: PlanService }) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.plans = deps.plans;
    this.users = new UsersRepo(deps.db);
    this.teams = new TeamsRepo(deps.db);
    this.tokens = new PersonalTokensRepo(deps.db);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  createUser(input: { name: string; email: string }): UserRow {
    const { name, email } = checkedPerson(input);
    if (this.users.byEmail(email)) throw conflict(`a user with email ${email} already exists`);
    const row: UserRow = { id: newId("usr"), name, email, active_team_id: null, created_at: this.now() };
    this.users.insert(row);
    return row;
  }

  requireUserByEmail(email: string): UserRow {
    const user = this.users.byEmail(email.trim());
    if (!user) throw notFound(`no user with email ${email}`);
    return user;
  }

  requireTeamBySlug(slug: string): TeamRow {
    const team = this.teams.bySlug(slug);
    if (!team) throw notFound(`no workspace with slug ${slug}`);
    return team;
  }

  private uniqueSlug(name: string): string {
    const base = slugify(name);
    let slug = base;
    for (let i = 2; this.teams.slugExists(slug); i++) slug = `${base}-${i}`;
    return slug;
  }

  /** A workspace with its owner; becomes the owner's active workspace if they had none. */
  createTeam(input: { name: string; ownerId: string; plan: string; isBetaTester?: boolean }): TeamRow {
    const name = input.name.trim();
    const problem = nameProblem(name, "team name");
    if (problem) throw badRequest(problem);
    this.plans.assertKnown(input.plan);
    return this.db
      .transaction(() => {
        const owner = this.users.byId(input.ownerId);
        if (!owner) throw notFound("owner not found");
        const team: TeamRow = {
          id: newId("team"),
          name,
          slug: this.uniqueSlug(name),
          is_beta_tester: input.isBetaTester ? 1 : 0,
          plan: input.plan,
          daily_searches_override: null,
          max_contacts_override: null,
          created_at: this.now(),
        };
        this.teams.insert(team);
        this.teams.addMember({ team_id: team.id, user_id: owner.id, role: "owner", created_at: this.now() });
        if (!owner.active_team_id) this.users.setActiveTeam(owner.id, team.id);
        return team;
      })
      .immediate();
  }

  addMember(input: { teamSlug: string; email: string; role: Role }): { team: TeamRow; user: UserRow } {
    return this.db
      .transaction(() => {
        const team = this.requireTeamBySlug(input.teamSlug);
        const user = this.requireUserByEmail(input.email);
        this.teams.addMember({ team_id: team.id, user_id: user.id, role: input.role, created_at: this.now() });
        if (!user.active_team_id) this.users.setActiveTeam(user.id, team.id);
        return { team, user };
      })
      .immediate();
  }

  setPlan(input: { teamSlug: string; plan: string; dailySearches?: number | null; maxContacts?: number | null }): TeamRow {
    this.plans.assertKnown(input.plan);
    const team = this.requireTeamBySlug(input.teamSlug);
    const daily = input.dailySearches === undefined ? team.daily_searches_override : input.dailySearches === null ? -1 : input.dailySearches;
    const contacts = input.maxContacts === undefined ? team.max_contacts_override : input.maxContacts === null ? -1 : input.maxContacts;
    // A plan change without explicit limits drops the old overrides: they belonged to the old plan.
    const planChanged = team.plan !== input.plan;
    this.teams.setPlan(
      team.id,
      input.plan,
      planChanged && input.dailySearches === undefined ? null : daily,
      planChanged && input.maxContacts === undefined ? null : contacts,
    );
    return this.teams.byId(team.id)!;
  }

  /** A new personal access token; the raw value is returned once and never stored. */
  issuePersonalToken(userId: string, name = "cli", expiresAt: string | null = null): { id: string; raw: string } {
    const token = issueToken("pat");
    const id = newId("tok");
    this.tokens.insert({
      id,
      user_id: userId,
      name,
      token_hash: token.hash,
      display_prefix: token.displayPrefix,
      created_at: this.now(),
      expires_at: expiresAt,
    });
    return { id, raw: token.raw };
  }

  /** Every user with how many workspaces they belong to (`outreach admin users list`). */
  listUsers(): Array<User & { workspaces: number; createdAt: string }> {
    return this.users.all().map((row) => ({ ...toUser(row), workspaces: row.team_count, createdAt: row.created_at }));
  }

  /**
   * Remove a user, their memberships and tokens. Refused (409) while they are the only
   * owner of a workspace others are in: it would be left with nobody who may manage it;
   * and while they are the only member of one: it would be left with no one at all, unless
   * `withWorkspaces` removes those workspaces (and what they hold) too. All or nothing.
   */
  removeUser(email: string, options: { withWorkspaces?: boolean } = {}): { user: UserRow; removedWorkspaces: string[] } {
    return this.db
      .transaction(() => {
        const user = this.requireUserByEmail(email);
        const alone: TeamRow[] = [];
        for (const team of this.teams.forUser(user.id)) {
          const members = this.teams.members(team.id).length;
          if (members === 1) alone.push(team);
          else if (team.role === "owner" && this.owners(team.id) === 1) {
            throw conflict(`${user.email} is the only owner of workspace ${team.slug}: make another member owner first (\`outreach admin members add --team ${team.slug} --email … --role owner\`)`);
          }
        }
        if (alone.length && !options.withWorkspaces) {
          const slugs = alone.map((t) => t.slug).join(", ");
          throw conflict(
            `${user.email} is the only member of workspace ${slugs}: removing them would leave it with no one. ` +
              `Add another owner first (\`outreach admin members add --team ${alone[0]!.slug} --email … --role owner\`), or remove the workspace and all it holds too (--with-workspaces)`,
          );
        }
        for (const team of alone) this.teams.delete(team.id);
        this.users.delete(user.id);
        return { user, removedWorkspaces: alone.map((t) => t.slug) };
      })
      .immediate();
  }

  /** Every workspace with its plan and member count (`outreach admin teams list`). */
  listTeams(): Array<{ id: string; name: string; slug: string; plan: string; members: number; createdAt: string }> {
    return this.teams.all().map((t) => ({ id: t.id, name: t.name, slug: t.slug, plan: t.plan, members: t.member_count, createdAt: t.created_at }));
  }

  /** Rename a workspace; its slug follows the new name unless one is given (slugs stay unique). */
  renameTeam(input: { teamSlug: string; name: string; slug?: string }): TeamRow {
    const name = input.name.trim();
    const problem = nameProblem(name, "team name");
    if (problem) throw badRequest(problem);
    return this.db
      .transaction(() => {
        const team = this.requireTeamBySlug(input.teamSlug);
        let slug: string;
        if (input.slug !== undefined) {
          slug = input.slug;
          if (slugify(slug) !== slug) throw badRequest(`slug ${JSON.stringify(slug)} must be lowercase letters, digits and dashes (e.g. ${slugify(slug)})`);
          if (slug !== team.slug && this.teams.slugExists(slug)) throw conflict(`the slug ${slug} is taken`);
        } else {
          slug = slugify(name) === slugify(team.name) ? team.slug : this.uniqueSlug(name);
        }
        this.teams.rename(team.id, name, slug);
        return this.teams.byId(team.id)!;
      })
      .immediate();
  }

  /** A workspace's members (`outreach admin members list`). */
  listMembers(teamSlug: string): Array<User & { role: Role; joinedAt: string }> {
    const team = this.requireTeamBySlug(teamSlug);
    return this.teams.members(team.id).map((m) => ({ id: m.user_id, name: m.name, email: m.email, role: m.role, joinedAt: m.created_at }));
  }

  /** Take a user out of a workspace; the last owner stays (409). The user keeps their other workspaces. */
  removeMember(input: { teamSlug: string; email: string }): { team: TeamRow; user: UserRow } {
    return this.db
      .transaction(() => {
        const team = this.requireTeamBySlug(input.teamSlug);
        const user = this.requireUserByEmail(input.email);
        const membership = this.teams.membership(team.id, user.id);
        if (!membership) throw notFound(`${user.email} is not a member of ${team.slug}`);
        if (membership.role === "owner" && this.owners(team.id) === 1) {
          throw conflict(`${user.email} is the only owner of ${team.slug}: make another member owner first`);
        }
        this.teams.removeMember(team.id, user.id);
        return { team, user };
      })
      .immediate();
  }

  private owners(teamId: string): number {
    return this.teams.members(teamId).filter((m) => m.role === "owner").length;
  }

  /**
   * The data directory as the CLI initialises it on first use (docs/cli.md, "Local or
   * remote"): one user at `@localhost.localdomain` and their "Personal" workspace.
   */
  bootstrapDefault(userName: string): { user: UserRow; team: TeamRow; token: string } {
    const local = userName.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "me";
    return this.bootstrap({ name: userName, email: `${local}@${DEFAULT_EMAIL_DOMAIN}`, team: DEFAULT_TEAM_NAME, plan: "self-hosted" });
  }

  /** The one user of a directory initialised with defaults, or undefined when it holds anything else. */
  defaultOwner(): { user: UserRow; team: TeamRow } | undefined {
    const users = this.users.all();
    if (users.length !== 1 || !users[0]!.email.toLowerCase().endsWith(`@${DEFAULT_EMAIL_DOMAIN}`)) return undefined;
    const teams = this.teams.forUser(users[0]!.id);
    if (teams.length !== 1 || teams[0]!.role !== "owner") return undefined;
    return { user: users[0]!, team: this.teams.byId(teams[0]!.id)! };
  }

  /**
   * `outreach init` on a directory initialised with defaults: the default user and
   * workspace become the ones asked for (what they hold stays), with a new token.
   */
  adoptDefault(input: { name: string; email: string; team: string; plan: string }): { user: UserRow; team: TeamRow; token: string } {
    return this.db
      .transaction(() => {
        const adopted = this.defaultOwner();
        if (!adopted) throw conflict("the data directory is not one initialised with defaults");
        const { name, email } = checkedPerson(input);
        this.users.rename(adopted.user.id, name, email);
        const team = this.renameTeam({ teamSlug: adopted.team.slug, name: input.team });
        this.setPlan({ teamSlug: team.slug, plan: input.plan });
        const token = this.issuePersonalToken(adopted.user.id, "init");
        return { user: this.users.byId(adopted.user.id)!, team: this.teams.byId(team.id)!, token: token.raw };
      })
      .immediate();
  }

  /** The first user, their workspace and a token, in one transaction: what `outreach init` does. */
  bootstrap(input: { name: string; email: string; team: string; plan: string }): { user: UserRow; team: TeamRow; token: string } {
    return this.db
      .transaction(() => {
        const user = this.createUser({ name: input.name, email: input.email });
        const team = this.createTeam({ name: input.team, ownerId: user.id, plan: input.plan });
        const token = this.issuePersonalToken(user.id, "init");
        return { user: this.users.byId(user.id)!, team, token: token.raw };
      })
      .immediate();
  }
}
