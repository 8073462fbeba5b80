import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { ServiceError, serviceFetch } from "../../providers/service-http.js";

/** One region of Geofabrik's index (`index-v1.json`: GeoJSON features' properties). */
export interface GeofabrikRegion {
  id: string;
  parent: string | null;
  name: string;
  pbfUrl: string;
}

export interface DownloadProgress {
  region: string;
  /** Bytes on disk so far, a resumed part included. */
  bytes: number;
  /** The whole file's size, when the server said. */
  total: number | null;
  /** Bytes per second of this download so far (not counting a resumed part). */
  rate: number;
  /** Seconds left at that rate, when the total is known. */
  etaSeconds: number | null;
}

export interface DownloadedFile {
  path: string;
  bytes: number;
  md5: string;
  /** Whether an interrupted earlier download was continued (HTTP Range). */
  resumed: boolean;
}

/** What a part file remembers, so it is only continued against the same version of the file. */
interface PartState {
  url: string;
  etag: string | null;
  lastModified: string | null;
}

const INDEX_TIMEOUT_MS = 60_000;
/** Time without a byte before a download counts as stalled (the file itself may take hours). */
const STALL_TIMEOUT_MS = 120_000;
const PROGRESS_EVERY_MS = 200;

/**
 * Geofabrik's download server (docs/data.md, "Region downloads"): the region index, the
 * `.osm.pbf` extracts with their published `.md5`, downloads that resume with HTTP Range.
 */
export class GeofabrikClient {
  constructor(
    /** `https://download.geofabrik.de` (`OUTREACH_GEOFABRIK_URL`; tests: a stub). */
    private readonly baseUrl: string,
    private readonly userAgent: string,
  ) {}

  /** Every region of the index. */
  async regions(signal?: AbortSignal): Promise<GeofabrikRegion[]> {
    const response = await serviceFetch("geofabrik", `${this.baseUrl.replace(/\/+$/, "")}/index-v1.json`, { headers: this.headers(), timeoutMs: INDEX_TIMEOUT_MS, signal });
    if (!response.ok) throw new ServiceError(`geofabrik: the region index answered HTTP ${response.status}`, response.status);
    const json = (await response.json()) as { features?: Array<{ properties?: { id?: unknown; parent?: unknown; name?: unknown; urls?: { pbf?: unknown } } }> };
    const regions: GeofabrikRegion[] = [];
    for (const feature of json.features ?? []) {
      const p = feature.properties;
      if (typeof p?.id !== "string" || typeof p.name !== "string" || typeof p.urls?.pbf !== "string") continue;
      regions.push({ id: p.id, parent: typeof p.parent === "string" ? p.parent : null, name: p.name, pbfUrl: p.urls.pbf });
    }
    if (regions.length === 0) throw new ServiceError("geofabrik: the region index lists no regions");
    return regions;
  }

  /** The published MD5 of a file (`<url>.md5`: "<hex>  <name>"). */
  async publishedMd5(url: string, signal?: AbortSignal): Promise<string> {
    const response = await serviceFetch("geofabrik", `${url}.md5`, { headers: this.headers(), timeoutMs: INDEX_TIMEOUT_MS, signal });
    if (!response.ok) throw new ServiceError(`geofabrik: ${url}.md5 answered HTTP ${response.status}`, response.status);
    const md5 = /^([0-9a-f]{32})\b/i.exec((await response.text()).trim())?.[1];
    if (!md5) throw new ServiceError(`geofabrik: ${url}.md5 holds no MD5 checksum`);
    return md5.toLowerCase();
  }

  /**
   * Download `url` to `path`: into `path.part` first, continued with `Range` (and
   * `If-Range`, so a changed file restarts) when a part is there, checked against
   * `expectedMd5`, then renamed into place. A failed check removes the part.
   */
  async download(url: string, path: string, expectedMd5: string, options: { region: string; signal?: AbortSignal; onProgress?: (p: DownloadProgress) => void }): Promise<DownloadedFile> {
    const part = `${path}.part`;
    const stateFile = `${part}.json`;
    const state = readPartState(stateFile);
    let offset = state?.url === url && existsSync(part) ? statSync(part).size : 0;
    const headers: Record<string, string> = this.headers();
    if (offset > 0) {
      headers.Range = `bytes=${offset}-`;
      const validator = state?.etag ?? state?.lastModified;
      if (validator) headers["If-Range"] = validator;
    }
    const stall = new AbortController();
    const response = await serviceFetch("geofabrik", url, {
      headers,
      timeoutMs: 24 * 60 * 60 * 1000,
      signal: options.signal ? AbortSignal.any([options.signal, stall.signal]) : stall.signal,
    });
    if (response.status === 416) {
      // The part is as long as the file (or longer): start again rather than guess.
      rmSync(part, { force: true });
      offset = 0;
      return this.download(url, path, expectedMd5, options);
    }
    if (!response.ok || !response.body) throw new ServiceError(`geofabrik: ${url} answered HTTP ${response.status}`, response.status);
    const resumed = response.status === 206 && offset > 0;
    if (!resumed) offset = 0;
    writeFileSync(stateFile, JSON.stringify({ url, etag: response.headers.get("etag"), lastModified: response.headers.get("last-modified") } satisfies PartState));
    const length = Number(response.headers.get("content-length"));
    const total = Number.isFinite(length) && length > 0 ? offset + length : null;

    // The MD5 is taken as the bytes arrive (a resumed part's bytes first), not by reading the file again.
    const hash = createHash("md5");
    if (resumed) for await (const chunk of createReadStream(part)) hash.update(chunk as Buffer);
    const started = performance.now();
    let received = 0;
    let lastReport = 0;
    let stallTimer = setTimeout(() => stall.abort(), STALL_TIMEOUT_MS);
    const report = (force: boolean) => {
      const now = performance.now();
      if (!force && now - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = now;
      const rate = received / Math.max((now - started) / 1000, 1e-3);
      const bytes = offset + received;
      options.onProgress?.({ region: options.region, bytes, total, rate, etaSeconds: total !== null && rate > 0 ? Math.max(0, (total - bytes) / rate) : null });
    };
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        hash.update(chunk);
        clearTimeout(stallTimer);
        stallTimer = setTimeout(() => stall.abort(), STALL_TIMEOUT_MS);
        report(false);
        callback(null, chunk);
      },
    });
    const writer = createWriteStream(part, { flags: resumed ? "a" : "w" });
    try {
      await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), counter, writer);
    } catch (err) {
      // Writes already queued still land after the pipeline gives up: wait, so the part's size is final before anyone resumes from it.
      if (!writer.closed) await new Promise<void>((resolve) => writer.once("close", () => resolve()));
      if (options.signal?.aborted) throw err;
      if (stall.signal.aborted) throw new ServiceError(`geofabrik: no data for ${STALL_TIMEOUT_MS / 1000} s; run the command again to resume`);
      throw new ServiceError(`geofabrik: the download broke off after ${offset + received} bytes (${err instanceof Error ? err.message : String(err)}); run the command again to resume`);
    } finally {
      clearTimeout(stallTimer);
    }
    report(true);
    const md5 = hash.digest("hex");
    if (md5 !== expectedMd5) {
      rmSync(part, { force: true });
      rmSync(stateFile, { force: true });
      throw new ServiceError(`geofabrik: ${url} does not match its published MD5 (got ${md5}, expected ${expectedMd5}); the damaged file was removed, run the command again`);
    }
    renameSync(part, path);
    rmSync(stateFile, { force: true });
    return { path, bytes: statSync(path).size, md5, resumed };
  }

  private headers(): Record<string, string> {
    return { "User-Agent": this.userAgent };
  }
}

function readPartState(file: string): PartState | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as PartState;
  } catch {
    return undefined;
  }
}

export async function md5OfFile(path: string): Promise<string> {
  const hash = createHash("md5");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

/** The region a user typed: its id ("liechtenstein", "us/california"), else its name, case and accents aside. */
export function findRegion(regions: readonly GeofabrikRegion[], query: string): GeofabrikRegion | undefined {
  const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().trim();
  const wanted = fold(query);
  return regions.find((r) => fold(r.id) === wanted) ?? regions.find((r) => fold(r.name) === wanted);
}

/** The file name a region's extract is kept under (`<data dir>/downloads/…`). */
export function regionFileName(region: GeofabrikRegion): string {
  return `${region.id.replace(/[^a-z0-9-]+/gi, "_")}-latest.osm.pbf`;
}

export const downloadsDir = (dataDir: string) => join(dataDir, "downloads");
