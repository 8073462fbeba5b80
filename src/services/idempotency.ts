import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { badRequest, conflict } from "../core/errors.js";
import type { Db } from "../store/db.js";
import { IdempotencyKeysRepo } from "../store/idempotency-keys.js";
import type { ServiceDeps } from "./deps.js";

/** How long a workspace's key is remembered (docs/api.md, "Idempotent requests"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A reservation whose request never stored an answer (the process was killed half-way)
 * may be taken over after this long; no request of an idempotent operation runs that long.
 */
export const IDEMPOTENCY_ABANDONED_MS = 10 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;

/** An answer as stored and replayed. */
export interface StoredAnswer {
  status: number;
  type: string | null;
  body: string;
}

/** What a request with an Idempotency-Key does: run (then `complete` or `release`), or replay the first answer. */
export type IdempotentStart =
  | { kind: "run"; complete(answer: StoredAnswer): void; release(): void }
  | { kind: "replay"; answer: StoredAnswer };

/** JSON with object keys sorted: two bodies that say the same thing hash the same, whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * `Idempotency-Key` on the POSTs that create or send: a repeat with the same key and the
 * same request within 24 hours gets the first answer again without the work being done
 * again; the same key with another request is a 409. The key is reserved in its own
 * immediate transaction before the work starts (an INSERT that only one of two
 * concurrent requests wins), so duplicates sent at the same time never both run; the
 * loser gets a 409 saying the first is still running.
 */
export class IdempotencyService {
  private readonly repo: IdempotencyKeysRepo;
  private readonly db: Db;
  private readonly clock: Clock;

  constructor(deps: Pick<ServiceDeps, "db" | "clock">) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.repo = new IdempotencyKeysRepo(deps.db);
  }

  /** 400 naming the header when the key is empty, too long or not printable ASCII. */
  static checkKey(key: string): string {
    const trimmed = key.trim();
    if (trimmed.length === 0 || trimmed.length > IDEMPOTENCY_KEY_MAX || !/^[\x20-\x7e]+$/.test(trimmed)) {
      throw badRequest(`Idempotency-Key: must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters (a UUID is a good key)`);
    }
    return trimmed;
  }

  /** The request a key stands for: the operation, its path parameters and its body. */
  static requestHash(operationId: string, params: unknown, body: unknown): string {
    return createHash("sha256").update(canonical([operationId, params ?? null, body ?? null])).digest("base64url");
  }

  begin(teamId: string, rawKey: string, requestHash: string): IdempotentStart {
    const key = IdempotencyService.checkKey(rawKey);
    const now = this.clock.now();
    const at = now.toISOString();
    const reserved = this.db
      .transaction(() => {
        // Keys past their 24 hours go first (an index range: nothing to do most of the time).
        this.repo.deleteExpired(at);
        const row = { team_id: teamId, key, request_hash: requestHash, created_at: at, expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString() };
        if (this.repo.tryInsert(row)) return undefined;
        // Left behind by a request that never finished: the key is free again.
        if (this.repo.deleteIfAbandoned(teamId, key, new Date(now.getTime() - IDEMPOTENCY_ABANDONED_MS).toISOString()) && this.repo.tryInsert(row)) return undefined;
        return this.repo.get(teamId, key);
      })
      .immediate();
    if (!reserved) {
      return {
        kind: "run",
        complete: (answer) => this.repo.complete(teamId, key, answer),
        release: () => this.repo.release(teamId, key),
      };
    }
    if (reserved.request_hash !== requestHash) {
      throw conflict("Idempotency-Key: this key was used with another request in the last 24 hours; send a new key for a new request");
    }
    if (reserved.response_status === null) {
      throw conflict("Idempotency-Key: a request with this key is still being processed; retry when it has finished", { headers: { "retry-after": "1" } });
    }
    return { kind: "replay", answer: { status: reserved.response_status, type: reserved.response_type, body: reserved.response_body ?? "" } };
  }
}
