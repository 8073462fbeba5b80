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
import { PlaceStaging } from "../store/place-staging.js";
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
  finishing?: { step: "search index"; cells: number; packed: number } | { step: "localities" } | { step: "replacing" };
}

export interface ImportSummary {
  file: string;
  source: { name: string; kind: string; dataDate: string | null; licence: string };
  /** Places new to the index. */
  added: number;
  /** Places already in the index whose fields changed. */
  updated: number;
  unchanged: number;
  /** Places of this source that the file no longer contains. */
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
async function importFingerprint(file: string, bbox: BoundingBox | undefined, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  return JSON.stringify({ sha256: hash.digest("hex"), bbox: bbox ?? null, rules: IMPORT_RULES, vocabulary: installedVocabularyStamp() });
}

/** One import's given facts, passed between its steps. */
interface ImportRun {
  name: string;
  importer: PlaceImporter;
  fingerprint: string;
  started: number;
  options: ImportFileOptions;
}

/** What reading a file gave besides the places written. */
interface ReadOutcome {
  skipped: Partial<Record<SkipReason, number>>;
  rejectedRows: string[];
  namedPlaces: NamedPlaceRow[];
  /** Progress of the steps after the reading. */
  report: (finishing: ImportProgress["finishing"]) => void;
}

interface ImportOutcome {
  sourceId: number;
  info: SourceInfo;
  counts: { added: number; updated: number; unchanged: number; removed: number };
  read: ReadOutcome;
  placeCount: number;
}

export interface ImportFileOptions {
  bbox?: BoundingBox;
  /**
   * Make the source exactly the file's places, atomically: the old ones stay searchable
   * until the whole file is read, then one transaction swaps the new ones in. Reads the
   * file even when its fingerprint matches the last import's.
   */
  replace?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  batchSize?: number;
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
  private placeStaging?: PlaceStaging;
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

  /** Where a replacement's places wait for the swap. */
  private get staging(): PlaceStaging {
    this.placeStaging ??= new PlaceStaging(this.deps.db);
    return this.placeStaging;
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
    const importer = importerFor(file);
    const fingerprint = await importFingerprint(file, options.bbox, options.signal);
    const existing = this.repo.sourceByName(name);
    const sibling = existing ? undefined : this.olderRevisionOf(name, importer.source().kind);
    const continued = sibling ? { continuesSource: sibling.name } : {};
    if (!options.replace && existing?.status === "complete" && existing.fingerprint === fingerprint) return this.unchangedSummary(existing, started);
    if (!options.replace && sibling?.status === "complete" && sibling.fingerprint === fingerprint) {
      return { ...this.unchangedSummary(this.repo.renameSource(sibling.id, name), started), ...continued };
    }
    const run = { name, importer, fingerprint, started, options };
    // A replacement of a region already in the index is atomic; anything else writes batch by batch.
    const target = existing ?? sibling;
    const outcome = options.replace && target ? await this.replaceSource(target, run) : await this.importInPlace(run, sibling);
    const stats = this.repo.sourceStats().find((s) => s.id === outcome.sourceId);
    const { info } = outcome;
    return {
      file: name,
      source: { name, kind: info.kind, dataDate: info.dataDate, licence: info.licence },
      ...outcome.counts,
      skipped: outcome.read.skipped,
      rejectedRows: outcome.read.rejectedRows,
      total: outcome.placeCount,
      withWebsite: stats?.with_website ?? 0,
      withPhone: stats?.with_phone ?? 0,
      withEmail: stats?.with_email ?? 0,
      seconds: (performance.now() - started) / 1000,
      unchangedFile: false,
      ...continued,
    };
  }

  /**
   * Import into the source named after the file (an older extract's source, renamed, if it
   * continues one), each batch its own transaction: the server keeps answering searches.
   * Stopped half-way, what was written stays (consistent, searchable, packed) and the
   * source says `failed`: the next import of the file completes it.
   */
  private async importInPlace(run: ImportRun, sibling: PlaceSourceRow | undefined): Promise<ImportOutcome> {
    const { name, importer, options } = run;
    if (sibling) this.repo.renameSource(sibling.id, name);
    const source = this.repo.beginSource({ ...importer.source(), name, now: this.deps.clock.now().toISOString() });
    const counts = { added: 0, updated: 0, unchanged: 0, removed: 0 };
    const endBulkWrites = this.repo.beginBulkWrites();
    try {
      let read: ReadOutcome;
      try {
        read = await this.readFile(run, (batch) => {
          const result = this.repo.upsertBatch(source.id, batch, this.deps.clock.now().toISOString());
          counts.added += result.added;
          counts.updated += result.updated;
          counts.unchanged += result.unchanged;
        });
      } catch (err) {
        this.repo.failSource(source.id);
        // What was written stays searchable, at full speed.
        this.postings.refresh();
        throw err;
      }
      const info = importer.source();
      const completed = this.repo.completeSource(source.id, { ...info, now: this.deps.clock.now().toISOString(), fingerprint: run.fingerprint });
      counts.removed = completed.removed;
      await this.packStaleCells(read.report);
      read.report({ step: "localities" });
      this.localities.replaceNamedPlaces(source.id, read.namedPlaces);
      this.localities.rebuild();
      return { sourceId: source.id, info, counts, read, placeCount: completed.placeCount };
    } finally {
      endBulkWrites();
    }
  }

  /**
   * Replace a region already in the index (`--replace`, a downloaded region's new extract)
   * atomically: the file's places are staged (`place-staging.ts`) while the old ones stay
   * searchable, then one transaction swaps them in (a diff: unchanged places are not
   * rewritten), records the source as complete and rebuilds the localities. Stopped before
   * the swap, nothing changed; after it, the replacement is complete and only the packing
   * of the cells it touched is left (the search computes those cells from their places
   * meanwhile, and `places reindex` or the next import packs them).
   */
  private async replaceSource(target: PlaceSourceRow, run: ImportRun): Promise<ImportOutcome> {
    const { name, importer, options } = run;
    this.staging.clear();
    try {
      const read = await this.readFile(run, (batch) => this.staging.add(batch));
      const info = importer.source();
      read.report({ step: "replacing" });
      const now = this.deps.clock.now().toISOString();
      const swapped = this.deps.db
        .transaction(() => {
          const counts = this.staging.swapInto(target.id, now);
          const placeCount = this.repo.recordComplete(target.id, { ...info, name, now, fingerprint: run.fingerprint });
          this.localities.replaceNamedPlaces(target.id, read.namedPlaces);
          this.localities.rebuild();
          return { counts, placeCount };
        })
        .immediate();
      this.staging.clear();
      // A Ctrl-C during the swap (which holds the thread) is heard in there: the swap stands.
      await this.packStaleCells(read.report, options.signal);
      return { sourceId: target.id, info, counts: swapped.counts, read, placeCount: swapped.placeCount };
    } finally {
      this.staging.clear();
    }
  }

  /** Pack the cells an import touched, on every core: threads read and encode the cells' postings while this connection writes them. */
  private async packStaleCells(report: (finishing: ImportProgress["finishing"]) => void, signal?: AbortSignal): Promise<void> {
    const cells = this.postings.staleCount();
    let packed = 0;
    report({ step: "search index", cells, packed });
    if (signal) {
      // Heard before a rebuild on this thread (few cells), which would not listen.
      await new Promise((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
    }
    await this.postings.refreshInParallel({ signal, onPacked: (chunk) => report({ step: "search index", cells, packed: (packed += chunk.length) }) });
  }

  /**
   * Read the file, handing each batch of places to `write` (in order, each its own
   * transaction), counting skips and keeping the named places for the localities.
   * Returns what was read and the progress reporter for the steps after.
   */
  private async readFile(run: ImportRun, write: (batch: PlaceWrite[]) => void): Promise<ReadOutcome> {
    const { name, importer, started, options } = run;
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
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
      write(batch);
      batch = [];
      report();
    };
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
    // The last batch's Ctrl-C, heard before anything is made final.
    await new Promise((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    return { skipped, rejectedRows, namedPlaces, report: (finishing) => report(finishing) };
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
