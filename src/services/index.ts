import type { Clock } from "../core/clock.js";
import type { Keyring } from "../core/crypto.js";
import type { Db } from "../store/db.js";
import { AuthService } from "./auth.js";
import type { ServerConfig } from "./config.js";
import { IdentityService } from "./identity.js";
import { Geocoder } from "../providers/geocode/geocoder.js";
import { LocalPlaceProvider } from "../providers/places/local.js";
import type { PlaceSearchProvider } from "../providers/places/provider.js";
import { passThroughEnricher, type LeadEnricher } from "./lead-enricher.js";
import { LeadSearchService } from "./lead-search.js";
import { QuotaService } from "./quota.js";
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
  quota: QuotaService;
  /** Where leads come from: the local places index unless replaced (Google, Overpass later). */
  placeProvider: PlaceSearchProvider;
  geocoder: Geocoder;
  /** Website enrichment of search results (pass-through until the enricher is wired). */
  leadEnricher: LeadEnricher;
  leadSearch: LeadSearchService;
}

export function createServices(deps: ServiceDeps): Services {
  const plans = new PlanService(deps.db);
  const identity = new IdentityService(deps.db, deps.clock, plans);
  const auth = new AuthService(deps.db, deps.clock);
  const teams = new TeamService(deps.db);
  const rateLimiter = new RateLimiter(deps.config.rateLimitPerMinute, deps.clock);
  const quota = new QuotaService(deps.db, deps.clock, plans);
  const placeProvider = new LocalPlaceProvider(deps.db);
  const geocoder = new Geocoder(deps.db);
  const leadEnricher = passThroughEnricher;
  const leadSearch = new LeadSearchService({
    db: deps.db,
    clock: deps.clock,
    keyring: deps.keyring,
    plans,
    quota,
    provider: placeProvider,
    geocoder,
    enricher: leadEnricher,
  });
  return { deps, plans, identity, auth, teams, rateLimiter, quota, placeProvider, geocoder, leadEnricher, leadSearch };
}
