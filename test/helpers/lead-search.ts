import type { Lead } from "../../src/core/schemas/lead.js";
import type { PlaceSearchProvider, PlaceSearchRequest } from "../../src/places/search/provider.js";
import type { LeadEnricher } from "../../src/services/leads/lead-enricher.js";
import { LeadSearchService } from "../../src/services/leads/lead-search.js";
import type { Services } from "../../src/services/index.js";

/** Put another provider (and optionally enricher) behind the lead search of `services`. */
export function useProvider(services: Services, provider: PlaceSearchProvider, enricher: LeadEnricher = services.leadEnricher): void {
  services.placeProvider = provider;
  services.leadSearch = new LeadSearchService({
    clock: services.deps.clock,
    keyring: services.deps.keyring,
    plans: services.plans,
    contacts: services.contacts,
    quota: services.quota,
    provider,
    geocoder: services.geocoder,
    enricher,
    log: () => {},
  });
}

/** A provider that always fails, as a remote API that answers 5xx would. */
export const failingProvider: PlaceSearchProvider = {
  name: "failing",
  async search() {
    throw new Error("upstream answered 503");
  },
  async resolvePlaceId() {
    return undefined;
  },
};

/** A provider that waits until the request is aborted; `started` resolves when a search begins, `aborted` when it stops. */
export function hangingProvider() {
  let onStart!: () => void;
  let onAbort!: () => void;
  const started = new Promise<void>((r) => (onStart = r));
  const aborted = new Promise<void>((r) => (onAbort = r));
  const provider: PlaceSearchProvider = {
    name: "hanging",
    search(request: PlaceSearchRequest) {
      onStart();
      return new Promise((_, reject) => {
        request.signal.addEventListener("abort", () => {
          onAbort();
          reject(request.signal.reason);
        });
      });
    },
    async resolvePlaceId() {
      return undefined;
    },
  };
  return { provider, started, aborted };
}

/** A provider answering fixed pages, like a remote API that only restricts to a rectangle. */
export function fixedProvider(pages: Array<{ leads: Lead[]; nextCursor: string | null }>): PlaceSearchProvider {
  return {
    name: "fixed",
    async search(request) {
      const index = request.cursor === null ? 0 : Number(request.cursor);
      return pages[index] ?? { leads: [], nextCursor: null };
    },
    async resolvePlaceId() {
      return undefined;
    },
  };
}

export function lead(placeId: string, lat: number, lng: number): Lead {
  return { placeId, name: `Place ${placeId}`, address: "Somewhere 1", lat, lng, website: null, domain: null, phone: null, rating: null, categories: [], email: null, socials: null };
}
