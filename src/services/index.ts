import { Geocoder } from "../providers/geocode/geocoder.js";
import { NominatimGeocoder } from "../providers/geocode/nominatim.js";
import { GooglePlacesProvider } from "../providers/places/google-places.js";
import { loadCategoryVocabulary } from "../providers/places/category-vocabulary.js";
import { LocalPlaceProvider } from "../providers/places/local.js";
import { OverpassProvider } from "../providers/places/overpass.js";
import { PlaceSources } from "../providers/places/place-sources.js";
import type { PlaceSearchProvider } from "../providers/places/provider.js";
import { AuthService } from "./auth.js";
import { BrandService } from "./brand.js";
import { CampaignService } from "./campaigns.js";
import { ContactService } from "./contacts.js";
import { contactsColumnSet } from "./contacts-encryption.js";
import type { ServiceDeps } from "./deps.js";
import { EnrichmentService } from "./enrichment.js";
import { IdentityService } from "./identity.js";
import { KeyRotationService } from "./key-rotation.js";
import { KeyringSource } from "./keyring-source.js";
import type { LeadEnricher } from "./lead-enricher.js";
import { LeadSearchService } from "./lead-search.js";
import { PlacesImportService } from "./places-import.js";
import { PlanService } from "./plans.js";
import { RegionDownloadService } from "./region-downloads.js";
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
  teams: TeamService;
  rateLimiter: RateLimiter;
  sendingDomains: SendingDomainService;
  campaigns: CampaignService;
  teamApiKeys: TeamApiKeyService;
  brand: BrandService;
  placesImport: PlacesImportService;
  /** `outreach places download|update`: Geofabrik extracts cached in the data directory. */
  regionDownloads: RegionDownloadService;
  /** Website enrichment; also the LeadEnricher the lead search calls. */
  enrichment: EnrichmentService;
  quota: QuotaService;
  /** Where leads come from: the configured place sources (local index, Google, Overpass) behind one provider; tests may replace it. */
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

/** The local index plus every outside source the settings turn on (docs/self-hosting.md, "Place sources"). */
function placeSources({ config, clock, cacheDir }: ServiceDeps, local: LocalPlaceProvider): PlaceSources {
  const now = () => clock.now().getTime();
  const providers = new Map<string, PlaceSearchProvider>([["local", local]]);
  if (config.googlePlacesKey) {
    providers.set(
      "google",
      new GooglePlacesProvider({ apiKey: config.googlePlacesKey, baseUrl: config.googlePlacesUrl, timeoutMs: config.sourceTimeoutMs, maxRequests: config.googleMaxRequests, now }),
    );
  }
  if (config.overpassUrl) {
    providers.set(
      "overpass",
      new OverpassProvider({
        url: config.overpassUrl,
        userAgent: config.userAgent,
        clock,
        timeoutMs: config.sourceTimeoutMs,
        cacheSeconds: config.overpassCacheSeconds,
        vocabulary: () => loadCategoryVocabulary(cacheDir),
      }),
    );
  }
  return new PlaceSources(providers, config.placesSources, now);
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
  const teams = new TeamService({ db });
  const rateLimiter = new RateLimiter({ clock, limitPerMinute: config.rateLimitPerMinute });
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
  const regionDownloads = new RegionDownloadService({ config, clock, dataDir: deps.dataDir, placesImport });
  const enrichment = new EnrichmentService({ db, clock, config });
  const quota = new QuotaService({ db, clock, plans });
  const placeProvider = placeSources(deps, new LocalPlaceProvider(db, { vocabulary: () => loadCategoryVocabulary(deps.cacheDir) }));
  const nominatim = config.nominatimUrl
    ? new NominatimGeocoder({ baseUrl: config.nominatimUrl, userAgent: config.userAgent, clock, timeoutMs: config.sourceTimeoutMs })
    : undefined;
  const geocoder = new Geocoder(db, undefined, nominatim);
  // The enrichment service passes leads through untouched when OUTREACH_ENRICH=0.
  const leadEnricher: LeadEnricher = enrichment;
  const leadSearch = new LeadSearchService({ clock, keyring: deps.keyring, plans, contacts, quota, provider: placeProvider, sourceNames: placeProvider.names, geocoder, enricher: leadEnricher });
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
    regionDownloads,
    enrichment,
    quota,
    placeProvider,
    geocoder,
    leadEnricher,
    leadSearch,
  };
}
