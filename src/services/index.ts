import { Geocoder } from "../providers/geocode/geocoder.js";
import { loadCategoryVocabulary } from "../providers/places/category-vocabulary.js";
import { LocalPlaceProvider } from "../providers/places/local.js";
import type { PlaceSearchProvider } from "../providers/places/provider.js";
import { AuthService } from "./auth.js";
import { BrandService } from "./brand.js";
import { CampaignService } from "./campaigns.js";
import { ContactService } from "./contacts.js";
import { contactsColumnSet } from "./contacts-encryption.js";
import type { ServiceDeps } from "./deps.js";
import { EnrichmentService } from "./enrichment.js";
import { IdempotencyService } from "./idempotency.js";
import { IdentityService } from "./identity.js";
import { KeyRotationService } from "./key-rotation.js";
import { KeyringSource } from "./keyring-source.js";
import type { LeadEnricher } from "./lead-enricher.js";
import { LeadSearchService } from "./lead-search.js";
import { PlacesImportService } from "./places-import.js";
import { PersonalTokenService } from "./personal-tokens.js";
import { PlanService } from "./plans.js";
import { QuotaService } from "./quota.js";
import { RateLimiter } from "./rate-limit.js";
import { SendingDomainService, sendingDomainsColumnSet } from "./sending-domains.js";
import { TeamApiKeyService } from "./team-api-keys.js";
import { TeamService } from "./teams.js";

export type { ServiceDeps } from "./deps.js";

export interface Services {
  deps: ServiceDeps;
  plans: PlanService;
  identity: IdentityService;
  auth: AuthService;
  /** The caller's own personal access tokens (list, create, revoke). */
  personalTokens: PersonalTokenService;
  teams: TeamService;
  rateLimiter: RateLimiter;
  /** `Idempotency-Key`: the first answer of a repeated create or send. */
  idempotency: IdempotencyService;
  sendingDomains: SendingDomainService;
  campaigns: CampaignService;
  teamApiKeys: TeamApiKeyService;
  brand: BrandService;
  placesImport: PlacesImportService;
  /** Website enrichment; also the LeadEnricher the lead search calls. */
  enrichment: EnrichmentService;
  quota: QuotaService;
  /** Where leads come from: the local places index unless replaced (Google, Overpass later). */
  placeProvider: PlaceSearchProvider;
  geocoder: Geocoder;
  /** Website enrichment of search results: the enrichment service (a pass-through with OUTREACH_ENRICH=0). */
  leadEnricher: LeadEnricher;
  leadSearch: LeadSearchService;
  /** The keyring, following the key file while a rotation in another process runs. */
  keys: KeyringSource;
  contacts: ContactService;
  /** Registry of encrypted columns and the re-encryption of `outreach admin keys rotate`. */
  keyRotation: KeyRotationService;
}

/**
 * Wire the services of one data directory. Each gets its dependencies by name; nothing
 * here does work beyond building objects (the contacts' n-gram and the places' category
 * backfills run in `openInstance`).
 */
export function createServices(deps: ServiceDeps): Services {
  const { db, clock, config } = deps;
  const plans = new PlanService({ db });
  const identity = new IdentityService({ db, clock, plans });
  const auth = new AuthService({ db, clock });
  const personalTokens = new PersonalTokenService({ db, clock, identity });
  const teams = new TeamService({ db });
  const rateLimiter = new RateLimiter({ clock, limitPerMinute: config.rateLimitPerMinute });
  const idempotency = new IdempotencyService({ db, clock });
  const keys = new KeyringSource(deps);
  const contacts = new ContactService({ db, clock, keys, plans });
  const keyRotation = new KeyRotationService({ db });
  keyRotation.register(contactsColumnSet(db));
  keyRotation.register(sendingDomainsColumnSet());
  const sendingDomains = new SendingDomainService({ db, clock, config, dkimKeys: deps.dkimKeys, plans, keys });
  const campaigns = new CampaignService({ db, clock });
  const teamApiKeys = new TeamApiKeyService({ db, clock });
  auth.registerResolver("key", (hash, now) => teamApiKeys.resolve(hash, now));
  const brand = new BrandService({ db, clock });
  const placesImport = new PlacesImportService({ db, clock, cacheDir: deps.cacheDir });
  const enrichment = new EnrichmentService({ db, clock, config });
  const quota = new QuotaService({ db, clock, plans });
  const placeProvider = new LocalPlaceProvider(db, { vocabulary: () => loadCategoryVocabulary(deps.cacheDir) });
  const geocoder = new Geocoder(db);
  // The enrichment service passes leads through untouched when OUTREACH_ENRICH=0.
  const leadEnricher: LeadEnricher = enrichment;
  const leadSearch = new LeadSearchService({ clock, keyring: deps.keyring, plans, contacts, quota, provider: placeProvider, geocoder, enricher: leadEnricher });
  return {
    deps,
    plans,
    identity,
    auth,
    personalTokens,
    teams,
    rateLimiter,
    idempotency,
    keys,
    contacts,
    keyRotation,
    sendingDomains,
    campaigns,
    teamApiKeys,
    brand,
    placesImport,
    enrichment,
    quota,
    placeProvider,
    geocoder,
    leadEnricher,
    leadSearch,
  };
}
