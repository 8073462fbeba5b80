import type { Clock } from "../core/clock.js";
import type { Keyring } from "../core/crypto.js";
import type { Db } from "../store/db.js";
import { AuthService } from "./auth.js";
import { BrandService } from "./brand.js";
import { CampaignService } from "./campaigns.js";
import { ContactService } from "./contacts.js";
import { contactsColumnSet } from "./contacts-encryption.js";
import { sendingDomainsColumnSet } from "./sending-domains.js";
import { KeyRotationService } from "./key-rotation.js";
import { KeyringSource } from "./keyring-source.js";
import type { ServerConfig } from "./config.js";
import { EnrichmentService } from "./enrichment.js";
import { IdentityService } from "./identity.js";
import { Geocoder } from "../providers/geocode/geocoder.js";
import { loadCategoryVocabulary } from "../providers/places/category-vocabulary.js";
import { LocalPlaceProvider } from "../providers/places/local.js";
import type { PlaceSearchProvider } from "../providers/places/provider.js";
import type { LeadEnricher } from "./lead-enricher.js";
import { LeadSearchService } from "./lead-search.js";
import { QuotaService } from "./quota.js";
import { PlanService } from "./plans.js";
import { PlacesImportService } from "./places-import.js";
import { RateLimiter } from "./rate-limit.js";
import { SendingDomainService } from "./sending-domains.js";
import { TeamApiKeyService } from "./team-api-keys.js";
import { TeamService } from "./teams.js";

/** What every service may depend on. Services get these, never an HTTP event or a terminal. */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  config: ServerConfig;
  dataDir: string;
  /** Derived data shared by data directories (see `resolveCacheDir`); none: kept in memory only. */
  cacheDir?: string;
}

export interface Services {
  deps: ServiceDeps;
  plans: PlanService;
  identity: IdentityService;
  auth: AuthService;
  teams: TeamService;
  rateLimiter: RateLimiter;
  sendingDomains: SendingDomainService;
  campaigns: CampaignService;
  teamApiKeys: TeamApiKeyService;
  brand: BrandService;
  placesImport: PlacesImportService;
  /** Website enrichment (issue 4); also the LeadEnricher the lead search calls. */
  enrichment: EnrichmentService;
  quota: QuotaService;
  /** Where leads come from: the local places index unless replaced (Google, Overpass later). */
  placeProvider: PlaceSearchProvider;
  geocoder: Geocoder;
  /** Website enrichment of search results (pass-through until the enricher is wired). */
  leadEnricher: LeadEnricher;
  leadSearch: LeadSearchService;
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
  // Contacts stored before the 4/5-gram index get theirs (one-off; a no-op afterwards).
  contacts.backfillNgrams();
  const keyRotation = new KeyRotationService(deps.db);
  keyRotation.register(contactsColumnSet(deps.db));
  keyRotation.register(sendingDomainsColumnSet());
  const sendingDomains = new SendingDomainService(deps, plans, keys);
  const campaigns = new CampaignService(deps.db, deps.clock);
  const teamApiKeys = new TeamApiKeyService(deps.db, deps.clock);
  auth.registerResolver("key", (hash, now) => teamApiKeys.resolve(hash, now));
  const brand = new BrandService(deps.db, deps.clock);
  const placesImport = new PlacesImportService(deps.db, deps.clock, deps.cacheDir);
  // Places stored before category tags get theirs (one-off; a no-op afterwards).
  placesImport.backfillCategoryTags();
  const enrichment = new EnrichmentService(deps.db, deps.clock, deps.config);
  const quota = new QuotaService(deps.db, deps.clock, plans);
  const placeProvider = new LocalPlaceProvider(deps.db, { vocabulary: () => loadCategoryVocabulary(deps.cacheDir) });
  const geocoder = new Geocoder(deps.db);
  // The enrichment service passes leads through untouched when OUTREACH_ENRICH=0.
  const leadEnricher: LeadEnricher = enrichment;
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
  return {
    deps,
    plans,
    identity,
    auth,
    teams,
    rateLimiter,
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
