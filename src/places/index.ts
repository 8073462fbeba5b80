import type { Clock } from "../core/clock.js";
import type { Db } from "../store/connection.js";
import { Geocoder } from "./geocode/geocoder.js";
import { NominatimGeocoder } from "./geocode/nominatim.js";
import { importerFor } from "./import/importers/index.js";
import { PlacesImportService } from "./import/places-import.js";
import { RegionDownloadService } from "./import/region-downloads.js";
import { LocalPlaceProvider } from "./search/local.js";
import type { PlaceSearchProvider } from "./search/provider.js";
import { GooglePlacesProvider } from "./sources/google-places.js";
import { OverpassProvider } from "./sources/overpass.js";
import { PlaceSources } from "./sources/place-sources.js";
import { loadCategoryVocabulary } from "./vocabulary/category-vocabulary.js";

/*
 * The places engine's one door (docs/architecture.md, "The places engine"). Outside
 * src/places only this file is imported: the lead search reads `sources` and `geocoder`,
 * the operator's commands `imports` and `downloads`, opening an instance `imports.catchUp`.
 * Inside: store/ (the index's tables), search/ (the local search), vocabulary/, import/,
 * sources/ (Google, Overpass, the merge across sources) and geocode/.
 */

export type { GeocodeResult } from "./geocode/geocoder.js";
export { Geocoder } from "./geocode/geocoder.js";
export type { DownloadProgress } from "./import/geofabrik.js";
export { GEONAMES_ATTRIBUTION, OSM_ATTRIBUTION, OVERTURE_ATTRIBUTION } from "./import/place-record.js";
export { parseBoundingBox, PlacesImportService, type ImportProgress, type ImportSummary } from "./import/places-import.js";
export { RegionDownloadService, type RegionDownloadResult } from "./import/region-downloads.js";
export { SAMPLE_DESCRIPTION, samplePath } from "./import/sample.js";
export { PAGE_SIZE, type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest } from "./search/provider.js";
export { PlaceSources } from "./sources/place-sources.js";

/** The settings the places engine reads: part of the server's (`ServerConfig`, read from the environment). */
export interface PlacesSettings {
  /** The User-Agent sent to Overpass, Nominatim and Geofabrik. */
  userAgent: string;
  /** Google Places API (New) key (`OUTREACH_GOOGLE_PLACES_KEY`); unset: the source is off. */
  googlePlacesKey: string | null;
  /** Google Places base URL (`OUTREACH_GOOGLE_PLACES_URL`). */
  googlePlacesUrl: string;
  /** Text Search requests one lead search may spend on its tiles (`OUTREACH_GOOGLE_MAX_REQUESTS`). */
  googleMaxRequests: number;
  /** Overpass API endpoint (`OUTREACH_OVERPASS_URL`, e.g. https://overpass-api.de/api/interpreter); unset: off. */
  overpassUrl: string | null;
  /** How long an Overpass answer is reused for the same query, in seconds (`OUTREACH_OVERPASS_CACHE_SECONDS`). */
  overpassCacheSeconds: number;
  /** Nominatim base URL (`OUTREACH_NOMINATIM_URL`, e.g. https://nominatim.openstreetmap.org); unset: off. */
  nominatimUrl: string | null;
  /** Time limit of one request to Google, Overpass or Nominatim, in milliseconds (`OUTREACH_SOURCE_TIMEOUT_MS`). */
  sourceTimeoutMs: number;
  /** The sources of a search whose body names none (`OUTREACH_PLACES_SOURCES`; default: local plus every configured one). */
  placesSources: string[];
  /** Geofabrik's download server (`OUTREACH_GEOFABRIK_URL`), for `outreach places download`. */
  geofabrikUrl: string;
}

export interface PlacesDeps {
  db: Db;
  clock: Clock;
  /** The data directory (region downloads are kept in it). */
  dataDir: string;
  /** Where the category vocabulary is cached (none: built in memory). */
  cacheDir?: string;
  settings: PlacesSettings;
}

export interface Places {
  /** Lead search over the configured sources: a page of leads, a place ID's point. */
  sources: PlaceSources;
  /** Text, a place ID or coordinates → the point a search is centred on; whether any place lies near one. */
  geocoder: Geocoder;
  /** Importing files into the local index, its statistics and reindexing, and what opening owes it (`catchUp`). */
  imports: PlacesImportService;
  /** Geofabrik regions downloaded, kept up to date and imported. */
  downloads: RegionDownloadService;
}

/** The places engine of one data directory: builds objects only (opening's work is `imports.catchUp`). */
export function createPlaces({ db, clock, dataDir, cacheDir, settings }: PlacesDeps): Places {
  const vocabulary = () => loadCategoryVocabulary(cacheDir);
  const imports = new PlacesImportService({ db, clock, cacheDir });
  const downloads = new RegionDownloadService({ config: settings, clock, dataDir, placesImport: imports });
  const sources = configuredSources(settings, clock, new LocalPlaceProvider(db, { vocabulary }), vocabulary);
  const nominatim = settings.nominatimUrl
    ? new NominatimGeocoder({ baseUrl: settings.nominatimUrl, userAgent: settings.userAgent, clock, timeoutMs: settings.sourceTimeoutMs })
    : undefined;
  return { sources, geocoder: new Geocoder(db, undefined, nominatim), imports, downloads };
}

/**
 * A file's import checked before any is read (exists, is a file, has a known format): the
 * notice to show about it (a CSV's guessed encoding), if any. Throws a 400-style error otherwise.
 */
export function checkImportFile(path: string, options: { encoding?: string } = {}): string | undefined {
  return importerFor(path, options).notice;
}

/** The local index plus every outside source the settings turn on (docs/self-hosting.md, "Place sources"). */
function configuredSources(settings: PlacesSettings, clock: Clock, local: LocalPlaceProvider, vocabulary: LocalVocabulary): PlaceSources {
  const now = () => clock.now().getTime();
  const providers = new Map<string, PlaceSearchProvider>([["local", local]]);
  if (settings.googlePlacesKey) {
    providers.set(
      "google",
      new GooglePlacesProvider({ apiKey: settings.googlePlacesKey, baseUrl: settings.googlePlacesUrl, timeoutMs: settings.sourceTimeoutMs, maxRequests: settings.googleMaxRequests, now }),
    );
  }
  if (settings.overpassUrl) {
    providers.set(
      "overpass",
      new OverpassProvider({
        url: settings.overpassUrl,
        userAgent: settings.userAgent,
        clock,
        timeoutMs: settings.sourceTimeoutMs,
        cacheSeconds: settings.overpassCacheSeconds,
        vocabulary,
      }),
    );
  }
  return new PlaceSources(providers, settings.placesSources, now);
}

type LocalVocabulary = () => ReturnType<typeof loadCategoryVocabulary>;
