import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename, resolve } from "node:path";
import { iso1A2Code } from "@rapideditor/country-coder";
import { badRequest } from "../core/errors.js";
import { loadCategoryVocabulary } from "../providers/places/category-vocabulary.js";
import { installedVocabularyStamp } from "../providers/places/vocabulary-build.js";
import { importerFor } from "../providers/places/importers/index.js";
import { extractSeries } from "../providers/places/extract-series.js";
import { samplePath } from "../providers/places/sample.js";
import type { BoundingBox } from "../core/geo.js";
import { PlaceCategorizer } from "../providers/places/place-categories.js";
import { joinTagTerms } from "../providers/places/place-tags.js";
import type { ImportItem, ImportOptions, PlaceImporter, PlaceRecord, ReadProgress, SkipReason, SourceInfo } from "../providers/places/place-record.js";
import { PlacesRepo, type PlaceSourceRow, type PlaceWrite, type SourceStats } from "../store/places.js";
import { LocalitiesRepo, type NamedPlaceRow } from "../store/localities.js";
import { PlacePostingsRepo } from "../store/place-postings.js";
import type { ServiceDeps } from "./deps.js";

/**
 * Places per write transaction. Small extracts stop gaining past 1,000 (bench/import.js);
 * a country does not: every commit copies the cell index's pages its places touched to the
 * WAL, and 2 million randomly placed businesses touch most of them in any batch, so fewer,
 * larger commits (bench/country-import.js: 5,000 → 20,000 took commits from 38 to 22 s).
 * One batch holds the database's write lock for about half a second.
 */
export const DEFAULT_BATCH_SIZE = 20_000;
/** At most this many rejected-row messages are kept for the summary (the counts are always complete). */
const MAX_REJECTED_ROWS = 50;
/** Records (places or skips) between progress reports besides the one after each batch. */
const PROGRESS_EVERY = 5000;
/** Least milliseconds between two reports of bytes read (the reader reports every block). */
const READ_PROGRESS_MS = 250;

export interface ImportProgress {
  file: string;
  /** Places read from the file so far (written or about to be). */
  places: number;
  skipped: number;
  /** Places read per second since the import started. */
  placesPerSecond: number;
  /** How far the current pass over the file has got (formats that report it: PBF). */
  read?: ReadProgress;
  /** Seconds the current pass needs at its rate so far; null until known. */
  passEtaSeconds: number | null;
  /**
   * Set once every place is written, for the steps after: packing the search index of the
   * cells the import touched (a minute at country scale), then the geocoder's localities.
   */
  finishing?: { step: "search index"; cells: number; packed: number } | { step: "localities" };
}

export interface ImportSummary {
  file: string;
  source: { name: string; kind: string; dataDate: string | null; licence: string };
  /** Places new to the index. */
  added: number;
  /** Places already in the index whose fields changed. */
  updated: number;
  unchanged: number;
  /** Places of this source that the file no longer contains (or all of them before a --replace). */
  removed: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** "line 7, field lat: …" for the first rejected rows of a CSV/NDJSON file. */
  rejectedRows: string[];
  /** Places of this source in the index after the import. */
  total: number;
  withWebsite: number;
  withPhone: number;
  withEmail: number;
  seconds: number;
  /** The file, bounding box and import rules were those of the source's last complete import: nothing was read or written. */
  unchangedFile: boolean;
  /**
   * The older extract of the same region (same file name but for its date or "latest")
   * whose source this import continued under the new name: its places were compared,
   * updated and removed as in a re-import, not duplicated.
   */
  continuesSource?: string;
}

/**
 * Bump when what an import derives from the same file changes (tag mapping, cleaning,
 * term rules): a re-import must then read the file again instead of trusting the
 * fingerprint of the last one. The vocabulary's packages are in the fingerprint already.
 */
const IMPORT_RULES = "places-import 1";

/** What a complete import read: the file's SHA-256, the bbox and the rules it was mapped with (migration 020). */
async function importFingerprint(file: string, bbox: BoundingBox | undefined, signal?: AbortSignal, encoding?: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  // A forced encoding reads the same bytes as other text: a re-import with it is not "unchanged".
  return JSON.stringify({ sha256: hash.digest("hex"), bbox: bbox ?? null, rules: IMPORT_RULES, vocabulary: installedVocabularyStamp(), ...(encoding && { encoding }) });
}

export interface ImportFileOptions {
  bbox?: BoundingBox;
  /** Drop the source (all its places) before importing. */
  replace?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  batchSize?: number;
  /** A CSV's text encoding, forced (`--encoding`); else detected (core/text-file.ts). */
  encoding?: string;
}

/**
 * An importer's items a block at a time where it reads in blocks (`readBatches`: a PBF's
 * arrive from its decoding threads per block), else one by one: one await per block
 * instead of one per item.
 */
async function* batchesOf(importer: PlaceImporter, options: ImportOptions): AsyncGenerator<readonly ImportItem[]> {
  if (importer.readBatches) {
    yield* importer.readBatches(options);
    return;
  }
  for await (const item of importer.read(options)) yield [item];
}

/** A place's stored labels (a JSON array), or none when unreadable. */
function parseLabels(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

/** "minLng,minLat,maxLng,maxLat" → a box; a usage error names what is wrong. */
export function parseBoundingBox(value: string): BoundingBox {
  const parts = value.split(",").map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length !== 4 || parts.some((p) => p === "") || numbers.some((n) => !Number.isFinite(n))) {
    throw badRequest(`--bbox must be four numbers minLng,minLat,maxLng,maxLat (got ${JSON.stringify(value)})`);
  }
  const [minLng, minLat, maxLng, maxLat] = numbers as [number, number, number, number];
  if (Math.abs(minLng) > 180 || Math.abs(maxLng) > 180) throw badRequest("--bbox longitudes must be between -180 and 180");
  if (Math.abs(minLat) > 90 || Math.abs(maxLat) > 90) throw badRequest("--bbox latitudes must be between -90 and 90");
  if (minLng >= maxLng || minLat >= maxLat) throw badRequest("--bbox minimums must be smaller than maximums (minLng,minLat,maxLng,maxLat)");
  return { minLng, minLat, maxLng, maxLat };
}

/** A cleaned place in column form (JSON serialised; the categories also as one text, and the category tags, for the term index). */
export function toPlaceWrite(place: PlaceRecord, categoryTags: readonly string[] = place.tags ?? []): PlaceWrite {
  return {
    placeId: place.placeId,
    name: place.name,
    address: place.address,
    street: place.street,
    housenumber: place.housenumber,
    postcode: place.postcode,
    city: place.city,
    country: place.country,
    lat: place.lat,
    lng: place.lng,
    website: place.website,
    phone: place.phone,
    email: place.email,
    socials: place.socials ? JSON.stringify(place.socials) : null,
    rating: place.rating,
    categories: JSON.stringify(place.categories),
    categoryText: place.categories.join(" "),
    categoryTags: joinTagTerms(categoryTags),
    cuisine: place.cuisine,
    brand: place.brand,
    description: place.description,
    openingHours: place.openingHours,
    provenance: place.provenance,
  };
}

/**
 * Imports files into the local places index (the operator's job, from the CLI). Reading
 * streams; writing is in batches, each its own immediate transaction, so the server can
 * keep answering searches during an import. The network is never involved.
 */
export class PlacesImportService {
  private placesRepo?: PlacesRepo;
  private postingsRepo?: PlacePostingsRepo;
  private localitiesRepo?: LocalitiesRepo;
  private readonly categorizer: PlaceCategorizer;

  constructor(private readonly deps: Pick<ServiceDeps, "db" | "clock" | "cacheDir">) {
    this.categorizer = new PlaceCategorizer(() => loadCategoryVocabulary(deps.cacheDir));
  }

  /** Made on first use: the server, which never imports, prepares none of this. */
  get repo(): PlacesRepo {
    this.placesRepo ??= new PlacesRepo(this.deps.db);
    return this.placesRepo;
  }

  /** The geocoder's localities, rebuilt once an import ends. */
  private get localities(): LocalitiesRepo {
    this.localitiesRepo ??= new LocalitiesRepo(this.deps.db);
    return this.localitiesRepo;
  }

  /** The search's packed term index, rebuilt for the cells an import touched once it ends. */
  private get postings(): PlacePostingsRepo {
    this.postingsRepo ??= new PlacePostingsRepo(this.deps.db);
    return this.postingsRepo;
  }

  async importFile(path: string, options: ImportFileOptions = {}): Promise<ImportSummary> {
    const started = performance.now();
    const file = resolve(path);
    const name = basename(file);
    const importer = importerFor(file, { encoding: options.encoding });
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    const fingerprint = await importFingerprint(file, options.bbox, options.signal, options.encoding);
    let previous = this.repo.sourceByName(name);
    const sibling = previous ? undefined : this.olderRevisionOf(name, importer.source().kind);
    if (sibling) previous = this.repo.renameSource(sibling.id, name);
    const continued = sibling ? { continuesSource: sibling.name } : {};
    if (!options.replace && previous?.status === "complete" && previous.fingerprint === fingerprint) return { ...this.unchangedSummary(previous, started), ...continued };
    let removed = 0;
    if (options.replace) {
      const existing = this.repo.sourceByName(name);
      if (existing) removed = this.repo.deleteSource(existing.id);
    }
    // Kind and licence are known from the format; the data date may come from the data.
    const provisional = importer.source();
    const source = this.repo.beginSource({ ...provisional, name, now: this.deps.clock.now().toISOString() });
    const counts = { added: 0, updated: 0, unchanged: 0 };
    const skipped: Partial<Record<SkipReason, number>> = {};
    const rejectedRows: string[] = [];
    let read = 0;
    let skippedTotal = 0;
    let batch: PlaceWrite[] = [];
    const namedPlaces: NamedPlaceRow[] = [];
    let lastRead: ReadProgress | undefined;
    let passStarted = started;
    let lastReadReport = 0;
    const report = (finishing?: ImportProgress["finishing"]) => {
      if (!options.onProgress) return;
      const now = performance.now();
      const passSeconds = (now - passStarted) / 1000;
      const passEtaSeconds = lastRead && lastRead.bytes > 0 && passSeconds > 0 ? (passSeconds * (lastRead.totalBytes - lastRead.bytes)) / lastRead.bytes : null;
      const placesPerSecond = read / Math.max((now - started) / 1000, 1e-3);
      options.onProgress({ file: name, places: read, skipped: skippedTotal, placesPerSecond, read: lastRead, passEtaSeconds, ...(finishing && { finishing }) });
    };
    const onRead = (progress: ReadProgress) => {
      if (progress.pass !== lastRead?.pass) passStarted = performance.now();
      lastRead = progress;
      const now = performance.now();
      if (now - lastReadReport < READ_PROGRESS_MS) return;
      lastReadReport = now;
      report();
    };
    const flush = () => {
      if (batch.length === 0) return;
      const result = this.repo.upsertBatch(source.id, batch, this.deps.clock.now().toISOString());
      counts.added += result.added;
      counts.updated += result.updated;
      counts.unchanged += result.unchanged;
      batch = [];
      report();
    };
    const endBulkWrites = this.repo.beginBulkWrites();
    let placeCount: number;
    let info: SourceInfo;
    try {
      try {
        for await (const items of batchesOf(importer, { bbox: options.bbox, signal: options.signal, onRead })) {
          for (const item of items) {
            // Ctrl-C stops between records, not only when the importer next touches the file.
            options.signal?.throwIfAborted();
            // Extracts are mostly skipped elements: report progress on them too, not only per batch.
            if ((read + skippedTotal) % PROGRESS_EVERY === 0) report();
            if (item.kind === "skip") {
              skipped[item.reason] = (skipped[item.reason] ?? 0) + 1;
              skippedTotal++;
              if (item.detail && rejectedRows.length < MAX_REJECTED_ROWS) rejectedRows.push(item.detail);
              continue;
            }
            if (item.kind === "locality") {
              const { id, name: placeName, kind, lat, lng } = item.locality;
              namedPlaces.push({ osmId: id, name: placeName, kind, lat, lng, country: iso1A2Code([lng, lat]) });
              continue;
            }
            read++;
            batch.push(toPlaceWrite(item.place, this.categorizer.tagsOf(item.place)));
            if (batch.length >= batchSize) {
              flush();
              // A turn of the event loop after each batch: where the reader does no I/O of its
              // own (a PBF's ways, placed after its last pass: a minute at country scale), a
              // Ctrl-C would otherwise not be heard until the whole import had been written.
              await new Promise((resolve) => setImmediate(resolve));
            }
          }
        }
        flush();
      } catch (err) {
        this.repo.failSource(source.id);
        // What was written stays searchable, at full speed.
        this.postings.refresh();
        throw err;
      }
      info = importer.source();
      const completed = this.repo.completeSource(source.id, { ...info, now: this.deps.clock.now().toISOString(), fingerprint });
      removed += completed.removed;
      placeCount = completed.placeCount;
      const cells = options.onProgress ? this.postings.staleCount() : 0;
      let packed = 0;
      report({ step: "search index", cells, packed });
      // On every core: threads read and encode the cells' postings while this connection writes them.
      await this.postings.refreshInParallel({ onPacked: (chunk) => report({ step: "search index", cells, packed: (packed += chunk.length) }) });
      report({ step: "localities" });
      this.localities.replaceNamedPlaces(source.id, namedPlaces);
      this.localities.rebuild();
    } finally {
      endBulkWrites();
    }
    const stats = this.repo.sourceStats().find((s) => s.id === source.id);
    return {
      file: name,
      source: { name, kind: info.kind, dataDate: info.dataDate, licence: info.licence },
      ...counts,
      removed,
      skipped,
      rejectedRows,
      total: placeCount,
      withWebsite: stats?.with_website ?? 0,
      withPhone: stats?.with_phone ?? 0,
      withEmail: stats?.with_email ?? 0,
      seconds: (performance.now() - started) / 1000,
      unchangedFile: false,
      ...continued,
    };
  }

  /**
   * The source of an older extract of the same region as `fileName` (extract-series.ts),
   * the most recently imported if several. Only for OSM and Overture, whose place IDs are
   * the data's own: a list's IDs include its file name, so two lists never share places.
   */
  private olderRevisionOf(fileName: string, kind: string): PlaceSourceRow | undefined {
    const series = extractSeries(fileName);
    if (!series || (kind !== "osm" && kind !== "overture")) return undefined;
    return this.repo
      .allSources()
      .filter((s) => s.kind === kind && extractSeries(s.name) === series)
      .sort((a, b) => b.imported_at.localeCompare(a.imported_at))[0];
  }

  /** The summary of a re-import the fingerprint showed has nothing to change. */
  private unchangedSummary(source: PlaceSourceRow, started: number): ImportSummary {
    const stats = this.repo.sourceStats().find((s) => s.id === source.id);
    return {
      file: source.name,
      source: { name: source.name, kind: source.kind, dataDate: source.data_date, licence: source.licence },
      added: 0,
      updated: 0,
      unchanged: source.place_count,
      removed: 0,
      skipped: {},
      rejectedRows: [],
      total: source.place_count,
      withWebsite: stats?.with_website ?? 0,
      withPhone: stats?.with_phone ?? 0,
      withEmail: stats?.with_email ?? 0,
      seconds: (performance.now() - started) / 1000,
      unchangedFile: true,
    };
  }

  /** Import the bundled Monaco sample (docs/data.md, "Bundled sample"); re-importing it changes nothing. */
  importSample(options: Omit<ImportFileOptions, "bbox"> = {}): Promise<ImportSummary> {
    return this.importFile(samplePath(), options);
  }

  /** Whether no place has been imported at all (a fresh data directory). */
  isEmpty(): boolean {
    return this.repo.indexCounts().places === 0;
  }

  stats(): { sources: SourceStats[]; index: ReturnType<PlacesRepo["indexCounts"]> & { staleCells: number } } {
    return { sources: this.repo.sourceStats(), index: { ...this.repo.indexCounts(), staleCells: this.postings.staleCount() } };
  }

  /**
   * Category tags for places written before they existed (listed by migration 015): from
   * their labels and brand, in batches, then the packed index of the cells they touched.
   * A no-op once the list is empty (one indexed read).
   */
  backfillCategoryTags(batchSize = 5000): number {
    let done = 0;
    let afterId = 0;
    for (;;) {
      const batch = this.repo.categoryBackfillBatch(afterId, batchSize);
      if (batch.length === 0) break;
      afterId = batch[batch.length - 1]!.id;
      this.repo.completeCategoryBackfill(
        batch.map((row) => {
          const categories = parseLabels(row.categories);
          return { id: row.id, categoryTags: joinTagTerms(this.categorizer.tagsOf({ ...row, categories })) };
        }),
      );
      done += batch.length;
    }
    if (done > 0) this.postings.refresh();
    return done;
  }

  /** Rebuild the search's packed term index wherever it is stale (after an import that was killed). */
  reindex(): { cells: number; seconds: number } {
    const started = performance.now();
    const cells = this.postings.refresh();
    return { cells, seconds: (performance.now() - started) / 1000 };
  }
}
