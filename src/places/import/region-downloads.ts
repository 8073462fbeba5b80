import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { badRequest } from "../../core/errors.js";
import { downloadsDir, findRegion, GeofabrikClient, md5OfFile, regionFileName, type DownloadProgress, type GeofabrikRegion } from "./geofabrik.js";
import type { Clock } from "../../core/clock.js";
import type { ImportProgress, ImportSummary, PlacesImportService } from "./places-import.js";

/** What the data directory remembers of each downloaded region (`downloads/regions.json`). */
export interface DownloadRecord {
  id: string;
  name: string;
  url: string;
  file: string;
  md5: string;
  bytes: number;
  downloadedAt: string;
  /** When it was last imported (null: downloaded only). */
  importedAt: string | null;
}

export interface RegionDownloadResult {
  region: GeofabrikRegion;
  record: DownloadRecord;
  /** False when the file in the cache already had the published MD5. */
  downloaded: boolean;
  resumed: boolean;
  imported: ImportSummary | null;
}

export interface RegionDownloadOptions {
  import?: boolean;
  signal?: AbortSignal;
  onDownload?: (progress: DownloadProgress) => void;
  onImport?: (progress: ImportProgress) => void;
}

export interface RegionDownloadDeps {
  config: { geofabrikUrl: string; userAgent: string };
  clock: Clock;
  /** The data directory: downloads are kept in it. */
  dataDir: string;
  placesImport: PlacesImportService;
}

/**
 * `outreach places download` and `places update` (docs/data.md, "Region downloads"):
 * regions from Geofabrik's index, their extracts kept in `<data dir>/downloads/` and
 * imported through the ordinary import (replacing the region's earlier import).
 */
export class RegionDownloadService {
  private readonly client: GeofabrikClient;
  private readonly dir: string;

  constructor(private readonly deps: RegionDownloadDeps) {
    this.client = new GeofabrikClient(deps.config.geofabrikUrl, deps.config.userAgent);
    this.dir = downloadsDir(deps.dataDir);
  }

  /** Regions whose id, name or parent contains `filter` (all without one). */
  async list(filter?: string, signal?: AbortSignal): Promise<GeofabrikRegion[]> {
    const regions = await this.client.regions(signal);
    const wanted = filter?.trim().toLowerCase();
    if (!wanted) return regions;
    return regions.filter((r) => [r.id, r.name, r.parent ?? ""].some((s) => s.toLowerCase().includes(wanted)));
  }

  async download(query: string, options: RegionDownloadOptions = {}): Promise<RegionDownloadResult> {
    const regions = await this.client.regions(options.signal);
    const region = findRegion(regions, query);
    if (!region) {
      const near = regions.filter((r) => r.id.includes(query.toLowerCase()) || r.name.toLowerCase().includes(query.toLowerCase())).slice(0, 8);
      throw badRequest(
        `region: ${JSON.stringify(query)} is not in Geofabrik's index${near.length ? `; did you mean ${near.map((r) => r.id).join(", ")}?` : ""} (\`outreach places download --list\` lists them)`,
      );
    }
    return this.fetchRegion(region, { ...options, force: false });
  }

  /** Re-download and re-import every region downloaded before whose published MD5 changed. */
  async update(options: RegionDownloadOptions = {}): Promise<Array<{ id: string; result: RegionDownloadResult | null }>> {
    const out: Array<{ id: string; result: RegionDownloadResult | null }> = [];
    for (const record of Object.values(this.records())) {
      const md5 = await this.client.publishedMd5(record.url, options.signal);
      if (md5 === record.md5) {
        out.push({ id: record.id, result: null });
        continue;
      }
      const region: GeofabrikRegion = { id: record.id, name: record.name, parent: null, pbfUrl: record.url };
      out.push({ id: record.id, result: await this.fetchRegion(region, { ...options, import: options.import ?? record.importedAt !== null, force: true }) });
    }
    return out;
  }

  records(): Record<string, DownloadRecord> {
    try {
      return JSON.parse(readFileSync(join(this.dir, "regions.json"), "utf8")) as Record<string, DownloadRecord>;
    } catch {
      return {};
    }
  }

  private async fetchRegion(region: GeofabrikRegion, options: RegionDownloadOptions & { force: boolean }): Promise<RegionDownloadResult> {
    mkdirSync(this.dir, { recursive: true });
    const path = join(this.dir, regionFileName(region));
    const md5 = await this.client.publishedMd5(region.pbfUrl, options.signal);
    const previous = this.records()[region.id];
    // A file in the cache with the published checksum is not fetched again.
    const current = previous && previous.md5 === md5 && (await md5OfFile(path).catch(() => null)) === md5;
    let resumed = false;
    let bytes = previous?.bytes ?? 0;
    if (!current) {
      const file = await this.client.download(region.pbfUrl, path, md5, { region: region.id, signal: options.signal, onProgress: options.onDownload });
      resumed = file.resumed;
      bytes = file.bytes;
    }
    const now = () => this.deps.clock.now().toISOString();
    let record: DownloadRecord = {
      id: region.id,
      name: region.name,
      url: region.pbfUrl,
      file: path,
      md5,
      bytes,
      downloadedAt: current ? previous.downloadedAt : now(),
      importedAt: previous?.importedAt ?? null,
    };
    this.save(record);
    let imported: ImportSummary | null = null;
    if (options.import) {
      imported = await this.deps.placesImport.importFile(path, { replace: true, signal: options.signal, onProgress: options.onImport });
      record = { ...record, importedAt: now() };
      this.save(record);
    }
    return { region, record, downloaded: !current, resumed, imported };
  }

  private save(record: DownloadRecord): void {
    const records = { ...this.records(), [record.id]: record };
    writeFileSync(join(this.dir, "regions.json"), JSON.stringify(records, null, 2) + "\n");
  }
}
