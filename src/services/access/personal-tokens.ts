import type { Clock } from "../../core/clock.js";
import { badRequest, notFound } from "../../core/errors.js";
import type { CreatePersonalTokenBody, PersonalToken } from "../../core/schemas/personal-token.js";
import { PersonalTokensRepo, type PersonalTokenRow } from "../../store/personal-tokens.js";
import type { Principal } from "./auth.js";
import type { ServiceDeps } from "../deps.js";
import type { IdentityService } from "./identity.js";

/** Personal tokens a user may hold that are not revoked: plenty for every machine and script, bounded. */
export const MAX_PERSONAL_TOKENS = 100;

const toPersonalToken = (row: PersonalTokenRow, currentId: string): PersonalToken => ({
  id: row.id,
  name: row.name,
  prefix: row.display_prefix,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
  current: row.id === currentId,
});

/**
 * A user's own personal access tokens (docs/api.md, "Personal access tokens"): list,
 * create, revoke. Only the owner of a token sees or revokes it; another user's token id is
 * a 404 like an unknown one.
 */
export class PersonalTokenService {
  private readonly repo: PersonalTokensRepo;
  private readonly clock: Clock;
  private readonly identity: IdentityService;

  constructor(deps: Pick<ServiceDeps, "db" | "clock"> & { identity: IdentityService }) {
    this.repo = new PersonalTokensRepo(deps.db);
    this.clock = deps.clock;
    this.identity = deps.identity;
  }

  private userOf(principal: Principal): string {
    // Personal-token operations only (auth "user"): the principal always has a user.
    return principal.userId!;
  }

  list(principal: Principal): PersonalToken[] {
    return this.repo
      .forUser(this.userOf(principal))
      .filter((row) => !row.revoked_at)
      .map((row) => toPersonalToken(row, principal.tokenId));
  }

  create(principal: Principal, body: CreatePersonalTokenBody): { token: PersonalToken; key: string } {
    const userId = this.userOf(principal);
    if (body.expiresAt && new Date(body.expiresAt).getTime() <= this.clock.now().getTime()) {
      throw badRequest("expiresAt: must be in the future");
    }
    if (this.repo.forUser(userId).filter((row) => !row.revoked_at).length >= MAX_PERSONAL_TOKENS) {
      throw badRequest(`you hold ${MAX_PERSONAL_TOKENS} tokens, the most a user may; revoke some first`);
    }
    const issued = this.identity.issuePersonalToken(userId, body.name, body.expiresAt ? new Date(body.expiresAt).toISOString() : null);
    return { token: toPersonalToken(this.repo.byId(issued.id)!, principal.tokenId), key: issued.raw };
  }

  /** Revoked at once: the next request with it is a 401. */
  revoke(principal: Principal, id: string): void {
    const row = this.repo.byId(id);
    if (!row || row.user_id !== this.userOf(principal) || row.revoked_at) throw notFound(`no token ${id}`);
    this.repo.revoke(id, this.clock.now().toISOString());
  }
}
