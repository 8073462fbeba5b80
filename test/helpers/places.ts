import { loadCategoryVocabulary } from "../../src/places/vocabulary/category-vocabulary.js";
import { labelTextBesideTags } from "../../src/places/vocabulary/place-categories.js";
import { resolveCacheDir } from "../../src/services/instance.js";
import { foldForSearch } from "../../src/core/text.js";
import type { Db } from "../../src/store/db.js";
import type { LocalityKind } from "../../src/places/store/localities.js";
import { PlacePostingsRepo } from "../../src/places/store/place-postings.js";

/**
 * Fill the places index through the real schema (migration 002) with plain SQL, the way
 * an importer would: one source, places with cleaned lead fields and category tags
 * (given, or what the vocabulary makes of the labels, as an import of a CSV does),
 * localities, and the search's packed term index rebuilt at the end.
 */
export interface TestPlace {
  placeId: string;
  name: string;
  lat: number;
  lng: number;
  categories?: string[];
  /** Category tag terms ("amenity=dentist"); default: those of `categories` in the vocabulary. */
  tags?: string[];
  address?: string;
  city?: string | null;
  postcode?: string | null;
  country?: string | null;
  website?: string | null;
  phone?: string | null;
  email?: string | null;
  socials?: Record<string, string> | null;
  rating?: number | null;
  cuisine?: string | null;
  brand?: string | null;
  description?: string | null;
  street?: string | null;
  housenumber?: string | null;
}

/** The category vocabulary, cached where the program caches it (built once per machine and package versions). */
export function testVocabulary() {
  return loadCategoryVocabulary(resolveCacheDir());
}

export function insertSource(db: Db, name = "test-extract.osm.pbf"): number {
  const existing = db.prepare("SELECT id FROM place_sources WHERE name = ?").get(name) as { id: number } | undefined;
  if (existing) return existing.id;
  return Number(
    db
      .prepare(
        "INSERT INTO place_sources (kind, name, data_date, licence, attribution, imported_at) VALUES ('osm', ?, '2026-03-29', 'ODbL-1.0', '© OpenStreetMap contributors', '2026-11-22T00:00:00.000Z')",
      )
      .run(name).lastInsertRowid,
  );
}

export function insertPlaces(db: Db, places: readonly TestPlace[], sourceName?: string): void {
  const sourceId = insertSource(db, sourceName);
  const insert = db.prepare(`INSERT INTO places (place_id, source_id, name, address, postcode, city, country, lat, lng, website, phone, email,
      socials, rating, categories, category_text, category_tags, cuisine, brand, description, street, housenumber, updated_at)
    VALUES (@placeId, @sourceId, @name, @address, @postcode, @city, @country, @lat, @lng, @website, @phone, @email,
      @socials, @rating, @categories, @categoryText, @categoryTags, @cuisine, @brand, @description, @street, @housenumber, '2026-11-22T00:00:00.000Z')`);
  const vocabulary = testVocabulary();
  db.transaction(() => {
    for (const p of places) {
      insert.run({
        placeId: p.placeId,
        sourceId,
        name: p.name,
        address: p.address ?? `${p.name} street 1, ${p.postcode ?? "9490"} ${p.city ?? "Vaduz"}`,
        postcode: p.postcode ?? null,
        city: p.city ?? null,
        country: p.country ?? "LI",
        lat: p.lat,
        lng: p.lng,
        website: p.website ?? null,
        phone: p.phone ?? null,
        email: p.email ?? null,
        socials: p.socials ? JSON.stringify(p.socials) : null,
        rating: p.rating ?? null,
        categories: JSON.stringify(p.categories ?? []),
        ...categoryColumns(p, vocabulary),
        street: p.street ?? null,
        housenumber: p.housenumber ?? null,
        cuisine: p.cuisine ?? null,
        brand: p.brand ?? null,
        description: p.description ?? null,
      });
    }
  })();
  // As an importer does once it ends: the search reads these cells packed.
  new PlacePostingsRepo(db).refresh();
}

/** One row of the geocoder's localities (migration 016); the key defaults to the name folded as the geocoder folds it. */
export function insertLocality(
  db: Db,
  row: { kind: LocalityKind; key?: string; name: string; city?: string | null; country: string; lat: number; lng: number; placeCount: number },
): void {
  db.prepare("INSERT INTO localities (kind, key, name, city, country, lat, lng, place_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
    row.kind,
    row.key ?? foldForSearch(row.name),
    row.name,
    row.city ?? null,
    row.country,
    row.lat,
    row.lng,
    row.placeCount,
  );
}

/** Minimal contact rows (the contacts feature owns the real write path). */
export function insertContacts(db: Db, teamId: string, count: number): void {
  const insert = db.prepare(
    "INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, key_id, created_at, updated_at) VALUES (?, ?, 'v1.k.x', ?, 'v1.k.y', 'k', '2026-11-22T00:00:00.000Z', '2026-11-22T00:00:00.000Z')",
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(`ct_test${teamId}${i}`, teamId, `bidx-${teamId}-${i}`);
  })();
}

/** Offset a point by km north and east (small distances). */
export function offsetKm(lat: number, lng: number, northKm: number, eastKm: number): { lat: number; lng: number } {
  return { lat: lat + northKm / 111.195, lng: lng + eastKm / (111.195 * Math.cos((lat * Math.PI) / 180)) };
}

/** Vaduz and a realistic small set of businesses around it. */
export const VADUZ = { lat: 47.141, lng: 9.5209 };

export function vaduzPlaces(): TestPlace[] {
  const at = (n: number, e: number) => offsetKm(VADUZ.lat, VADUZ.lng, n, e);
  return [
    { placeId: "osm:node:1", name: "Dentists Vaduz", ...at(0.3, 0.1), categories: ["dentist"], website: "https://www.dentists-vaduz.li/", phone: "+423 232 00 00", city: "Vaduz", postcode: "9490" },
    { placeId: "osm:node:2", name: "Dr. Meier", ...at(1.0, -0.5), categories: ["dentist"], email: "praxis@meier.li", city: "Vaduz" },
    { placeId: "osm:node:3", name: "Zahnarztpraxis Schaan", ...at(4.0, -1.0), categories: ["dentist"], city: "Schaan" },
    { placeId: "osm:node:4", name: "Far Dentist Buchs", ...at(8.0, -4.0), categories: ["dentist"], city: "Buchs", country: "CH" },
    { placeId: "osm:way:5", name: "Ristorante Italia", ...at(0.2, 0.2), categories: ["restaurant", "italian restaurant"], cuisine: "italian", website: "ristorante-italia.li", rating: 4.5, socials: { facebook: "https://facebook.com/italia", twitter: "not a url" } },
    { placeId: "osm:node:6", name: "Café Wolf", ...at(0.1, 0.0), categories: ["cafe"], city: "Vaduz" },
    { placeId: "osm:node:7", name: "Hotel Löwen", ...at(0.5, 0.5), categories: ["hotel"], description: "Hotel with restaurant" },
  ];
}

/** The category columns as an import writes them: the tags, and the text of the labels they do not say. */
function categoryColumns(p: TestPlace, vocabulary: ReturnType<typeof testVocabulary>): { categoryText: string; categoryTags: string } {
  const categories = p.categories ?? [];
  const tags = p.tags ?? vocabulary.tagsOfLabels(categories);
  return { categoryText: labelTextBesideTags({ tags: p.tags, categories }, tags, () => vocabulary), categoryTags: tags.join(" ") };
}
