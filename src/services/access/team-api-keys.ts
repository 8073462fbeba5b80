import { badRequest, conflict, notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { CreateKeyBody, TeamApiKey } from "../../core/schemas/team-api-key.js";
import { issueToken } from "../../core/tokens.js";
import { TeamApiKeysRepo, type TeamApiKeyRow } from "../../store/team-api-keys.js";
import { LAST_USED_RESOLUTION_MS, type Principal } from "./auth.js";
import { requireManager } from "./roles.js";
import type { ServiceDeps } from "../deps.js";

/** Usable (not revoked, not expired) keys per workspace: enough for every integration, bounded. */
export const MAX_USABLE_KEYS_PER_TEAM = 50;

/**
 * A key rotated less than this long ago cannot be rotated again (409). Each rotation kills
 * the key before it, so of two rotations that cross (two deploy scripts, a retried request)
 * the first caller would hold a dead key without knowing; instead the second learns that
 * the key was replaced a moment ago and gets no new one, so exactly one key is handed out.
 */
export const ROTATION_COOLDOWN_MS = 10_000;

export const toTeamApiKey = (row: TeamApiKeyRow): TeamApiKey => ({
  id: row.id,
  name: row.name,
  keyPrefix: row.key_prefix,
  scopes: JSON.parse(row.scopes) as string[],
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

export interface IssuedKey {
  apiKey: TeamApiKey;
  /** The raw key: returned once, never stored. */
  key: string;
}

/**
 * Team API keys (docs/api.md, "Team API keys": endpoint 15 and the additions): scoped,
 * workspace-owned bearer keys for integrations. Create, rotate and revoke are for owners
 * and admins; listing is open to members, like everything else.
 */
export class TeamApiKeyService {
  private readonly repo: TeamApiKeysRepo;

  constructor(private readonly deps: Pick<ServiceDeps, "db" | "clock">) {
    this.repo = new TeamApiKeysRepo(deps.db);
  }

  /** The resolver AuthService calls for `otr_key_…` bearers: null for unknown, revoked or expired. */
  resolve(hash: string, now: Date): Principal | null {
    const row = this.repo.byHash(hash);
    if (!row || row.revoked_at) return null;
    const stamp = now.toISOString();
    if (row.expires_at && row.expires_at <= stamp) return null;
    // The row just read says whether a write is due: most requests issue no UPDATE at all,
    // and the guarded UPDATE keeps two racing requests from writing twice.
    const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
    if (!row.last_used_at || row.last_used_at < staleBefore) this.repo.touch(row.id, stamp, staleBefore);
    return { kind: "key", tokenId: row.id, userId: null, teamId: row.team_id, role: null, scopes: JSON.parse(row.scopes) as string[] };
  }

  list(principal: Principal): TeamApiKey[] {
    return this.repo.forTeam(principal.teamId).map(toTeamApiKey);
  }

  create(principal: Principal, body: CreateKeyBody): IssuedKey {
    requireManager(principal, "create team API keys");
    const now = this.deps.clock.now();
    let expiresAt: string | null = null;
    if (body.expiresAt) {
      const at = new Date(body.expiresAt);
      if (at.getTime() <= now.getTime()) throw badRequest("invalid body: expiresAt must be in the future");
      expiresAt = at.toISOString();
    }
    const token = issueToken("key");
    const row = {
      id: newId("key"),
      team_id: principal.teamId,
      name: body.name,
      key_hash: token.hash,
      key_prefix: token.displayPrefix,
      scopes: JSON.stringify([...body.scopes].sort()),
      created_by: principal.userId,
      created_at: now.toISOString(),
      expires_at: expiresAt,
    };
    this.deps.db
      .transaction(() => {
        if (this.repo.countUsable(principal.teamId, row.created_at) >= MAX_USABLE_KEYS_PER_TEAM) {
          throw conflict(`this workspace already has ${MAX_USABLE_KEYS_PER_TEAM} usable team API keys: revoke one first`);
        }
        this.repo.insert(row);
      })
      .immediate();
    return { apiKey: toTeamApiKey({ ...row, rotated_at: null, last_used_at: null, revoked_at: null }), key: token.raw };
  }

  /** Endpoint 15: a new raw key for the same id; the previous one fails from this instant. */
  rotate(principal: Principal, id: string): IssuedKey {
    requireManager(principal, "rotate team API keys");
    const token = issueToken("key");
    const clock = this.deps.clock.now();
    const now = clock.toISOString();
    const notRotatedSince = new Date(clock.getTime() - ROTATION_COOLDOWN_MS).toISOString();
    const rotated = this.deps.db
      .transaction(() => {
        const row = this.repo.rotate(principal.teamId, id, token.hash, token.displayPrefix, now, notRotatedSince);
        if (row) return row;
        const existing = this.repo.byId(principal.teamId, id);
        if (!existing) throw notFound(`team API key ${id} not found`);
        if (existing.revoked_at) throw conflict(`team API key ${id} was revoked at ${existing.revoked_at} and cannot be rotated: create a new key`);
        if (existing.expires_at && existing.expires_at <= now) {
          throw conflict(`team API key ${id} expired at ${existing.expires_at} and cannot be rotated: create a new key`);
        }
        const again = new Date(existing.rotated_at!).getTime() + ROTATION_COOLDOWN_MS;
        throw conflict(
          `team API key ${id} was rotated at ${existing.rotated_at}, less than ${ROTATION_COOLDOWN_MS / 1000} s ago (by a concurrent request?): ` +
            `the key that rotation returned is the live one; rotate again from ${new Date(again).toISOString()} if you still need to`,
          { headers: { "retry-after": String(Math.max(1, Math.ceil((again - clock.getTime()) / 1000))) } },
        );
      })
      .immediate();
    return { apiKey: toTeamApiKey(rotated), key: token.raw };
  }

  /** Revoking twice is harmless: the key is answered as it is, revoked at the first time. */
  revoke(principal: Principal, id: string): TeamApiKey {
    requireManager(principal, "revoke team API keys");
    const now = this.deps.clock.now().toISOString();
    return this.deps.db
      .transaction(() => {
        const row = this.repo.revoke(principal.teamId, id, now) ?? this.repo.byId(principal.teamId, id);
        if (!row) throw notFound(`team API key ${id} not found`);
        return toTeamApiKey(row);
      })
      .immediate();
  }

}
