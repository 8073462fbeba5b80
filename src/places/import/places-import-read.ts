import { iso1A2Code } from "@rapideditor/country-coder";
import type { PlaceCategorizer } from "../vocabulary/place-categories.js";
import type { ImportItem, ImportOptions, PlaceImporter, PlaceRecord, ReadProgress, SkipReason } from "./place-record.js";
import type { NamedPlaceRow } from "../store/localities.js";
import type { PlaceWrite } from "../store/places.js";
import type { BoundingBox } from "../../core/geo.js";
import { joinTagTerms } from "../vocabulary/place-tags.js";

/**
 * The reading half of a places import (`places-import.ts`): the importer's items in
 * batches, progress reports (bytes of the current pass, places per second, time left), the
 * skips counted by reason and the named places kept for the localities. Where each batch
 * goes (written in place, or staged for a replacement's swap) is the caller's.
 */

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
  /** A CSV's text encoding, forced (`--encoding`); else detected (core/text-file.ts). */
  encoding?: string;
}

/** A cleaned place in column form (JSON serialised; the categories also as one text, and the category tags, for the term index). */
export function toPlaceWrite(place: PlaceRecord, { tags: categoryTags, labelText }: { tags: readonly string[]; labelText: string }): PlaceWrite {
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
    categoryText: labelText,
    categoryTags: joinTagTerms(categoryTags),
    cuisine: place.cuisine,
    brand: place.brand,
    description: place.description,
    openingHours: place.openingHours,
    provenance: place.provenance,
  };
}

/** One import's given facts, passed between its steps. */
export interface ImportRun {
  name: string;
  importer: PlaceImporter;
  fingerprint: string;
  started: number;
  options: ImportFileOptions;
  /** Places per write transaction unless the options say otherwise. */
  defaultBatchSize: number;
}

/** What reading a file gave besides the places written. */
export interface ReadOutcome {
  skipped: Partial<Record<SkipReason, number>>;
  rejectedRows: string[];
  namedPlaces: NamedPlaceRow[];
  /** Progress of the steps after the reading. */
  report: (finishing: ImportProgress["finishing"]) => void;
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

/**
 * Read an import's file, handing each batch of places to `write` (in order, each its own
 * transaction), counting skips and keeping the named places for the localities.
 * Returns what was read and the progress reporter for the steps after.
 */
export async function readImportFile(run: ImportRun, categorizer: PlaceCategorizer, write: (batch: PlaceWrite[]) => void): Promise<ReadOutcome> {
  const { name, importer, started, options } = run;
  const batchSize = options.batchSize ?? run.defaultBatchSize;
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
      batch.push(toPlaceWrite(item.place, categorizer.categorize(item.place)));
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
