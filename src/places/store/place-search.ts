import type { BoundingBox } from "../../core/geo.js";
import { cellRangesOfBox, cellSql } from "./geo-grid.js";
import { foldForSearch } from "../../core/text.js";
import type { Db } from "../../store/db.js";
import type { PlaceWrite } from "./places.js";

/** The text, category tags and point of a place, enough to match the keywords and rank it. */
export interface Candidate {
  id: number;
  lat: number;
  lng: number;
  name: string;
  category_text: string;
  category_tags: string;
  cuisine: string | null;
  brand: string | null;
  description: string | null;
}

/** A `places` row as the search reads it: the columns the importer wrote (their names are the same), with the row's ids. */
export type PlaceRow = { id: number; place_id: string } & Pick<
  PlaceWrite,
  | "name" | "address" | "street" | "housenumber" | "city" | "postcode" | "country" | "lat" | "lng" | "website" | "phone" | "email" | "socials"
  | "rating" | "categories" | "cuisine" | "brand"
>;

const CANDIDATE_COLUMNS =
  "p.id AS id, p.lat AS lat, p.lng AS lng, p.name AS name, p.category_text AS category_text, p.category_tags AS category_tags, p.cuisine AS cuisine, p.brand AS brand, p.description AS description";

const PLACE_COLUMNS =
  "id, place_id, name, address, street, housenumber, city, postcode, country, lat, lng, website, phone, email, socials, rating, categories, cuisine, brand";

type PlaceRowValues = [
  PlaceRow["id"], PlaceRow["place_id"], PlaceRow["name"], PlaceRow["address"], PlaceRow["street"], PlaceRow["housenumber"], PlaceRow["city"],
  PlaceRow["postcode"], PlaceRow["country"], PlaceRow["lat"], PlaceRow["lng"], PlaceRow["website"], PlaceRow["phone"], PlaceRow["email"],
  PlaceRow["socials"], PlaceRow["rating"], PlaceRow["categories"], PlaceRow["cuisine"], PlaceRow["brand"],
];

/**
 * A row read as an array (`PLACE_COLUMNS`' order) as the object `PlaceRow`: better-sqlite3
 * builds a row object through V8's API column by column, ~3 µs a row of these 19 columns;
 * an object literal of the array's values costs a fraction of that (bench/search-engine-ab.js).
 */
function placeRowOf(v: PlaceRowValues): PlaceRow {
  return {
    id: v[0], place_id: v[1], name: v[2], address: v[3], street: v[4], housenumber: v[5], city: v[6], postcode: v[7], country: v[8],
    lat: v[9], lng: v[10], website: v[11], phone: v[12], email: v[13], socials: v[14], rating: v[15], categories: v[16], cuisine: v[17], brand: v[18],
  };
}

/**
 * Read queries of the lead search over the local places index (migration 002). The
 * importer owns the write side (`places.ts`); nothing here writes.
 */
export class PlaceSearchRepo {
  private readonly rowsStatement;

  constructor(private readonly db: Db) {
    // Prepared once: every page of every search reads its rows through it.
    this.rowsStatement = db.prepare(`SELECT ${PLACE_COLUMNS} FROM places WHERE id IN (SELECT value FROM json_each(?))`).raw(true);
  }

  /**
   * Every place in the boxes, read by grid row through `places_by_cell`; the caller tests
   * the keywords. The search's fallback where a circle spans too many term-index cells
   * (near a pole).
   */
  boxCandidates(boxes: readonly BoundingBox[]): Candidate[] {
    const out: Candidate[] = [];
    const statement = this.db.prepare(
      `SELECT ${CANDIDATE_COLUMNS} FROM places p
        WHERE ${cellSql("p.lat", "p.lng")} BETWEEN ? AND ? AND p.lat BETWEEN ? AND ? AND p.lng BETWEEN ? AND ?`,
    );
    for (const b of boxes) {
      for (const [first, last] of cellRangesOfBox(b)) out.push(...(statement.all(first, last, b.minLat, b.maxLat, b.minLng, b.maxLng) as Candidate[]));
    }
    return out;
  }

  /** These places' names as `--sort name` orders them: folded (case and accents aside), by id. */
  sortNamesByIds(ids: readonly number[]): Map<number, string> {
    const names = new Map<number, string>();
    if (ids.length === 0) return names;
    const rows = this.db.prepare("SELECT id, name FROM places WHERE id IN (SELECT value FROM json_each(?))").raw(true).all(JSON.stringify(ids)) as Array<[number, string]>;
    for (const [id, name] of rows) names.set(id, foldForSearch(name));
    return names;
  }

  /** Whether the index holds no place at all (nothing imported yet). */
  isEmpty(): boolean {
    return (this.db.prepare("SELECT EXISTS (SELECT 1 FROM places) AS found").get() as { found: number }).found === 0;
  }

  rowsByIds(ids: readonly number[]): PlaceRow[] {
    if (ids.length === 0) return [];
    return (this.rowsStatement.all(JSON.stringify(ids)) as PlaceRowValues[]).map(placeRowOf);
  }

  byPlaceId(placeId: string): PlaceRow | undefined {
    return this.db.prepare(`SELECT ${PLACE_COLUMNS} FROM places WHERE place_id = ?`).get(placeId) as PlaceRow | undefined;
  }
}
