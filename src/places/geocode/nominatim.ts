import type { Clock } from "../../core/clock.js";
import type { LatLng } from "../../core/geo.js";
import { normaliseKey } from "../../core/text.js";
import { retryAfterSeconds } from "../../core/retry-after.js";
import { ServiceError, serviceFetch } from "../../providers/service-http.js";

export interface NominatimOptions {
  /** `https://nominatim.openstreetmap.org` or a self-hosted instance (`OUTREACH_NOMINATIM_URL`). */
  baseUrl: string;
  /** An identifying User-Agent: the public instance refuses library defaults. */
  userAgent: string;
  clock: Clock;
  timeoutMs: number;
  /** At most one request per this many milliseconds, for the whole process (the public instance's policy: 1 s). */
  minIntervalMs?: number;
  /** How long an answer (a miss included) is reused. */
  cacheTtlMs?: number;
}

interface Cached {
  point: LatLng | null;
  at: number;
}

const MAX_CACHED = 5000;

/**
 * Nominatim as the geocoder's last resort, for a location the offline gazetteer and the
 * imported localities do not know (docs/api.md, "Centre"): `GET /search?q=…&format=jsonv2&limit=1`,
 * one request at a time and at most one a second, an identifying User-Agent, and every
 * answer cached (a day by default) — the public instance's usage policy.
 */
export class NominatimGeocoder {
  private readonly cache = new Map<string, Cached>();
  /** The chain every request waits its turn on. */
  private queue: Promise<unknown> = Promise.resolve();
  private lastRequestAt = -Infinity;

  constructor(private readonly options: NominatimOptions) {}

  /** The point of free text, or null when Nominatim knows no such place. Throws a ServiceError when it cannot answer. */
  async search(text: string, signal: AbortSignal): Promise<LatLng | null> {
    const key = normaliseKey(text).replace(/\s+/g, " ").trim();
    const hit = this.fresh(key);
    if (hit) return hit.point;
    const turn = this.queue.then(() => this.request(key, text, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private fresh(key: string): Cached | undefined {
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at <= (this.options.cacheTtlMs ?? 24 * 3600_000)) return hit;
    return undefined;
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  private async request(key: string, text: string, signal: AbortSignal): Promise<LatLng | null> {
    // Another search may have asked the same while this one waited.
    const hit = this.fresh(key);
    if (hit) return hit.point;
    const wait = this.lastRequestAt + (this.options.minIntervalMs ?? 1000) - this.now();
    if (wait > 0) await this.options.clock.sleep(wait, signal);
    this.lastRequestAt = this.now();
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, "")}/search`);
    url.searchParams.set("q", text);
    url.searchParams.set("format", "jsonv2");
    url.searchParams.set("limit", "1");
    const response = await serviceFetch("nominatim", url, { headers: { "User-Agent": this.options.userAgent, Accept: "application/json" }, timeoutMs: this.options.timeoutMs, signal });
    if (!response.ok) {
      throw new ServiceError(`nominatim: HTTP ${response.status}`, response.status, retryAfterSeconds(response.headers.get("retry-after")));
    }
    const results = (await response.json().catch(() => null)) as Array<{ lat?: unknown; lon?: unknown }> | null;
    if (!Array.isArray(results)) throw new ServiceError("nominatim: the answer is not a JSON array");
    const first = results[0];
    const lat = Number(first?.lat);
    const lng = Number(first?.lon);
    const point = first && Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { lat, lng } : null;
    this.cache.set(key, { point, at: this.now() });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return point;
  }
}
