import type { Clock } from "../../core/clock.js";
import { unauthorized } from "../../core/errors.js";
import { hashToken, parseToken, type TokenKind } from "../../core/tokens.js";
import type { Role } from "../../core/schemas/team.js";
import { PersonalTokensRepo } from "../../store/personal-tokens.js";
import { TeamsRepo } from "../../store/teams.js";
import { UsersRepo } from "../../store/users.js";
import type { ServiceDeps } from "../deps.js";

/** Who is calling, and in which workspace. Every service call that touches workspace data takes one. */
export interface Principal {
  kind: TokenKind;
  /** The token's row id: the rate-limit key. */
  tokenId: string;
  /** The token's owner; null for team API keys, which belong to a workspace, not a person. */
  userId: string | null;
  teamId: string;
  /** The user's role in the workspace; null for team API keys. */
  role: Role | null;
  /** Scopes of a team API key; null for personal tokens (which act as their user). */
  scopes: readonly string[] | null;
}

/** Resolves the hash of a well-formed token of one kind to a principal, or null if unknown/revoked/expired. */
export type TokenResolver = (hash: string, now: Date) => Principal | null;

/** `lastUsedAt` is written at most this often per token: not a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export class AuthService {
  private readonly resolvers = new Map<TokenKind, TokenResolver>();
  private readonly users: UsersRepo;
  private readonly teams: TeamsRepo;
  private readonly tokens: PersonalTokensRepo;

  private readonly clock: Clock;

  constructor(deps: Pick<ServiceDeps, "db" | "clock">) {
    this.clock = deps.clock;
    this.users = new UsersRepo(deps.db);
    this.teams = new TeamsRepo(deps.db);
    this.tokens = new PersonalTokensRepo(deps.db);
    this.resolvers.set("pat", (hash, now) => this.resolvePersonalToken(hash, now));
  }

  /** Team API keys (and any later token kind) plug in here. */
  registerResolver(kind: TokenKind, resolver: TokenResolver): void {
    this.resolvers.set(kind, resolver);
  }

  /** From an `Authorization` header value to a principal, or a 401 saying what is wrong. */
  authenticate(header: string | null | undefined): Principal {
    if (!header) throw unauthorized("missing bearer token: send 'Authorization: Bearer <token>'");
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized("malformed Authorization header: expected 'Bearer <token>'");
    const raw = match[1]!;
    const kind = parseToken(raw);
    // The checksum is checked before any lookup: made-up tokens cost no database work.
    if (!kind) throw unauthorized("malformed token");
    const resolver = this.resolvers.get(kind);
    const principal = resolver?.(hashToken(raw), this.clock.now());
    if (!principal) throw unauthorized("invalid, expired or revoked token");
    return principal;
  }

  private resolvePersonalToken(hash: string, now: Date): Principal | null {
    const token = this.tokens.byHash(hash);
    if (!token || token.revoked_at) return null;
    if (token.expires_at && token.expires_at <= now.toISOString()) return null;
    const user = this.users.byId(token.user_id);
    if (!user) return null;
    let teamId = user.active_team_id;
    let membership = teamId ? this.teams.membership(teamId, user.id) : undefined;
    if (!membership) {
      // The active workspace is gone or the user left it: fall back to the first one they still belong to.
      const first = this.teams.forUser(user.id)[0];
      if (!first) throw unauthorized("no active workspace");
      teamId = first.id;
      this.users.setActiveTeam(user.id, teamId);
      membership = { team_id: first.id, user_id: user.id, role: first.role, created_at: first.joined_at };
    }
    // Checked on the row in hand first: an UPDATE that matches nothing still takes the
    // write lock and a statement step on every request (team API keys do the same).
    const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
    if (!token.last_used_at || token.last_used_at < staleBefore) this.tokens.touch(token.id, now.toISOString(), staleBefore);
    return { kind: "pat", tokenId: token.id, userId: user.id, teamId: teamId!, role: membership.role, scopes: null };
  }
}
