import type { Db } from "./db.js";

/** A rectangle in degrees; a circle's bounding box is one or two of these (two across ±180°). */
export interface Box {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/** The text and point of a place, enough to test the keywords and rank it. */
export interface Candidate {
  id: number;
  lat: number;
  lng: number;
  name: string;
  category_text: string;
  cuisine: string | null;
  brand: string | null;
  description: string | null;
}

/** A `places` row as the search reads it. */
export interface PlaceRow {
  id: number;
  place_id: string;
  name: string;
  address: string;
  city: string | null;
  postcode: string | null;
  country: string | null;
  lat: number;
  lng: number;
  website: string | null;
  phone: string | null;
  email: string | null;
  socials: string | null;
  rating: number | null;
  categories: string;
  cuisine: string | null;
  brand: string | null;
}

const CANDIDATE_COLUMNS = "p.id AS id, p.lat AS lat, p.lng AS lng, p.name AS name, p.category_text AS category_text, p.cuisine AS cuisine, p.brand AS brand, p.description AS description";

const PLACE_COLUMNS =
  "id, place_id, name, address, city, postcode, country, lat, lng, website, phone, email, socials, rating, categories, cuisine, brand";

/**
 * Read queries of the lead search over the local places index (migration 002). The
 * importer owns the write side (`places.ts`); nothing here writes.
 */
export class PlaceSearchRepo {
  private vocabReady = false;

  constructor(private readonly db: Db) {}

  /**
   * FTS-first plan: walk every full-text match and keep those in the box. Cheap when the
   * keywords are rare (a few thousand matches in the whole index), whatever the radius.
   */
  matchThenBox(match: string, boxes: readonly Box[]): Candidate[] {
    const out: Candidate[] = [];
    const statement = this.db.prepare(
      `SELECT ${CANDIDATE_COLUMNS} FROM places_fts JOIN places p ON p.id = places_fts.rowid
        WHERE places_fts MATCH ? AND p.lat BETWEEN ? AND ? AND p.lng BETWEEN ? AND ?`,
    );
    for (const b of boxes) out.push(...(statement.all(match, b.minLat, b.maxLat, b.minLng, b.maxLng) as Candidate[]));
    return out;
  }

  /**
   * Every full-text match in the whole index (to build the provider's in-memory match
   * list), streamed row by row so that 100k+ matches never sit in memory as objects.
   */
  allMatches(match: string): IterableIterator<Candidate> {
    return this.db
      .prepare(`SELECT ${CANDIDATE_COLUMNS} FROM places_fts JOIN places p ON p.id = places_fts.rowid WHERE places_fts MATCH ?`)
      .iterate(match) as IterableIterator<Candidate>;
  }

  /**
   * Changes when places are imported, re-imported or replaced: the sources' import times,
   * their count and the highest place id. Cheap (place_sources is tiny), so it is read
   * on every search to invalidate cached match lists.
   */
  indexSignature(): string {
    const row = this.db
      .prepare("SELECT max(imported_at) AS at, count(*) AS n, sum(place_count) AS places, (SELECT max(id) FROM places) AS top FROM place_sources")
      .get() as { at: string | null; n: number; places: number | null; top: number | null };
    return `${row.at}|${row.n}|${row.places}|${row.top}`;
  }

  /**
   * Box-first plan: every place the R*Tree finds in the box; the caller tests the
   * keywords. Cheap for common keywords ("restaurant") in a small circle, where walking
   * every match in the country would be the expensive part. (Restricting the FTS query
   * to the box's rowids instead is pathological: FTS5 re-runs a prefix query per rowid.)
   */
  boxCandidates(boxes: readonly Box[]): Candidate[] {
    const out: Candidate[] = [];
    const statement = this.db.prepare(
      `SELECT ${CANDIDATE_COLUMNS} FROM places_rtree r JOIN places p ON p.id = r.id
        WHERE r.min_lat >= ? AND r.max_lat <= ? AND r.min_lng >= ? AND r.max_lng <= ?`,
    );
    for (const b of boxes) out.push(...(statement.all(b.minLat, b.maxLat, b.minLng, b.maxLng) as Candidate[]));
    return out;
  }

  /** Places in the box, counted on the R*Tree (the box-first plan's cost). */
  countInBox(boxes: readonly Box[], stopAt: number): number {
    const statement = this.db.prepare(
      "SELECT count(*) AS n FROM (SELECT 1 FROM places_rtree WHERE min_lat >= ? AND max_lat <= ? AND min_lng >= ? AND max_lng <= ? LIMIT ?)",
    );
    let n = 0;
    for (const b of boxes) n += (statement.get(b.minLat, b.maxLat, b.minLng, b.maxLng, stopAt) as { n: number }).n;
    return n;
  }

  /**
   * Documents containing a term that starts with `prefix`, summed over the matching
   * terms (an upper bound, read from the FTS vocabulary: no document is touched). The
   * FTS-first plan's cost is about the smallest of these over the ANDed keywords.
   */
  documentsWithPrefix(prefix: string): number {
    this.ensureVocab();
    const row = this.db
      .prepare("SELECT coalesce(sum(doc), 0) AS n FROM temp.places_fts_vocab WHERE term >= ? AND term < ?")
      .get(prefix, prefix + "\u{10FFFF}") as { n: number };
    return row.n;
  }

  rowsByIds(ids: readonly number[]): PlaceRow[] {
    if (ids.length === 0) return [];
    return this.db
      .prepare(`SELECT ${PLACE_COLUMNS} FROM places WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as PlaceRow[];
  }

  byPlaceId(placeId: string): PlaceRow | undefined {
    return this.db.prepare(`SELECT ${PLACE_COLUMNS} FROM places WHERE place_id = ?`).get(placeId) as PlaceRow | undefined;
  }

  /**
   * The vocabulary view is a TEMP virtual table: it is per connection and not part of
   * the schema, so it needs no migration and leaves the file untouched.
   */
  private ensureVocab(): void {
    if (this.vocabReady) return;
    this.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.places_fts_vocab USING fts5vocab(main, places_fts, row)");
    this.vocabReady = true;
  }
}
