import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename, resolve } from "node:path";
import { badRequest } from "../../core/errors.js";
import { loadCategoryVocabulary } from "../vocabulary/category-vocabulary.js";
import { installedVocabularyStamp } from "../vocabulary/vocabulary-build.js";
import { importerFor } from "./importers/index.js";
import { extractSeries } from "./extract-series.js";
import { samplePath } from "./sample.js";
import type { BoundingBox } from "../../core/geo.js";
import { PlaceCategorizer } from "../vocabulary/place-categories.js";
import { joinTagTerms } from "../vocabulary/place-tags.js";
import type { SkipReason, SourceInfo } from "./place-record.js";
import { PlacesRepo, type PlaceSourceRow, type SourceStats } from "../store/places.js";
import { LocalitiesRepo } from "../store/localities.js";
import { PlacePostingsRepo } from "../store/place-postings.js";
import { PlaceStaging } from "../store/place-staging.js";
import type { Clock } from "../../core/clock.js";
import type { Db } from "../../store/connection.js";
import { PlaceLabelWords } from "../store/place-label-words.js";
import { RebuildRequests } from "../store/rebuild-requests.js";
import { readImportFile, type ImportFileOptions, type ImportProgress, type ImportRun, type ReadOutcome } from "./places-import-read.js";

// What callers of the import service name, defined with the reading.
export { toPlaceWrite, type ImportFileOptions, type ImportProgress } from "./places-import-read.js";

/**
 * Places per write transaction. Small extracts stop gaining past 1,000 (bench/import.js);
 * a country does not: every commit copies the cell index's pages its places touched to the
 * WAL, and 2 million randomly placed businesses touch most of them in any batch, so fewer,
 * larger commits (bench/country-import.js: 5,000 → 20,000 took commits from 38 to 22 s).
 * One batch holds the database's write lock for about half a second.
 */
export const DEFAULT_BATCH_SIZE = 20_000;


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
async function importFingerprint(file: string, bbox: BoundingBox | undefined, signal?: AbortSignal, encoding?: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  // A forced encoding reads the same bytes as other text: a re-import with it is not "unchanged".
  return JSON.stringify({ sha256: hash.digest("hex"), bbox: bbox ?? null, rules: IMPORT_RULES, vocabulary: installedVocabularyStamp(), ...(encoding && { encoding }) });
}

interface ImportOutcome {
  sourceId: number;
  info: SourceInfo;
  counts: { added: number; updated: number; unchanged: number; removed: number };
  read: ReadOutcome;
  placeCount: number;
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


export interface PlacesImportDeps {
  db: Db;
  clock: Clock;
  /** Where the category vocabulary is cached (none: built in memory). */
  cacheDir?: string;
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

  constructor(private readonly deps: PlacesImportDeps) {
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
    const importer = importerFor(file, { encoding: options.encoding });
    const fingerprint = await importFingerprint(file, options.bbox, options.signal, options.encoding);
    const existing = this.repo.sourceByName(name);
    const sibling = existing ? undefined : this.olderRevisionOf(name, importer.source().kind);
    const continued = sibling ? { continuesSource: sibling.name } : {};
    if (!options.replace && existing?.status === "complete" && existing.fingerprint === fingerprint) return this.unchangedSummary(existing, started);
    if (!options.replace && sibling?.status === "complete" && sibling.fingerprint === fingerprint) {
      return { ...this.unchangedSummary(this.repo.renameSource(sibling.id, name), started), ...continued };
    }
    const run: ImportRun = { name, importer, fingerprint, started, options, defaultBatchSize: DEFAULT_BATCH_SIZE };
    // A replacement of a region already in the index is atomic; anything else writes batch by batch.
    const target = existing ?? sibling;
    const outcome = options.replace && target ? await this.replaceSource(target, run) : await this.importInPlace(run, sibling);
    const { info } = outcome;
    return {
      file: name,
      source: { name, kind: info.kind, dataDate: info.dataDate, licence: info.licence },
      ...outcome.counts,
      skipped: outcome.read.skipped,
      rejectedRows: outcome.read.rejectedRows,
      total: outcome.placeCount,
      ...this.contactCounts(outcome.sourceId, started),
      unchangedFile: false,
      ...continued,
    };
  }

  /** How many of a source's places have a website, phone, email; and the import's seconds so far. */
  private contactCounts(sourceId: number, started: number): Pick<ImportSummary, "withWebsite" | "withPhone" | "withEmail" | "seconds"> {
    const stats = this.repo.sourceStats().find((s) => s.id === sourceId);
    return { withWebsite: stats?.with_website ?? 0, withPhone: stats?.with_phone ?? 0, withEmail: stats?.with_email ?? 0, seconds: (performance.now() - started) / 1000 };
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
        read = await readImportFile(run, this.categorizer, (batch) => {
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
      const read = await readImportFile(run, this.categorizer, (batch) => this.staging.add(batch));
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
      ...this.contactCounts(source.id, started),
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
   * What opening the instance owes the index: the localities, the label words and the packed
   * postings a migration asked to rebuild (`rebuildAtOpen`), and category tags for places written
   * before them. A no-op afterwards (two indexed reads).
   */
  catchUp(): void {
    const requests = new RebuildRequests(this.deps.db);
    const pending = requests.pending();
    if (pending.has("localities")) {
      this.deps.db
        .transaction(() => {
          this.localities.rebuild();
          requests.done("localities");
        })
        .immediate();
    }
    if (pending.has("label-words")) {
      this.deps.db
        .transaction(() => {
          PlaceLabelWords.of(this.deps.db)!.addFromEveryPlace();
          requests.done("label-words");
        })
        .immediate();
    }
    this.backfillCategoryTags();
    if (pending.has("postings")) {
      this.postings.refresh();
      requests.done("postings");
    }
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
          const { tags, labelText } = this.categorizer.categorize({ ...row, categories });
          return { id: row.id, categoryTags: joinTagTerms(tags), categoryText: labelText };
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
