import type { Clock } from "../core/clock.js";
import type { Keyring } from "../core/crypto.js";
import type { Db } from "../store/db.js";
import { AuthService } from "./auth.js";
import { ContactService } from "./contacts.js";
import { contactsColumnSet } from "./contacts-encryption.js";
import { KeyRotationService } from "./key-rotation.js";
import { KeyringSource } from "./keyring-source.js";
import type { ServerConfig } from "./config.js";
import { IdentityService } from "./identity.js";
import { PlanService } from "./plans.js";
import { RateLimiter } from "./rate-limit.js";
import { TeamService } from "./teams.js";

/** What every service may depend on. Services get these, never an HTTP event or a terminal. */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  config: ServerConfig;
  dataDir: string;
}

export interface Services {
  deps: ServiceDeps;
  plans: PlanService;
  identity: IdentityService;
  auth: AuthService;
  teams: TeamService;
  rateLimiter: RateLimiter;
  /** The keyring, following the key file while a rotation in another process runs. */
  keys: KeyringSource;
  contacts: ContactService;
  /** Registry of encrypted columns and the re-encryption of `outreach admin keys rotate`. */
  keyRotation: KeyRotationService;
}

export function createServices(deps: ServiceDeps): Services {
  const plans = new PlanService(deps.db);
  const identity = new IdentityService(deps.db, deps.clock, plans);
  const auth = new AuthService(deps.db, deps.clock);
  const teams = new TeamService(deps.db);
  const rateLimiter = new RateLimiter(deps.config.rateLimitPerMinute, deps.clock);
  const keys = new KeyringSource(deps.keyring, deps.dataDir);
  const contacts = new ContactService(deps.db, deps.clock, keys, plans);
  const keyRotation = new KeyRotationService(deps.db);
  keyRotation.register(contactsColumnSet(deps.db));
  return { deps, plans, identity, auth, teams, rateLimiter, keys, contacts, keyRotation };
}
