import { coordinatesAddress } from "../../../core/lead-values.js";
import { placeAt, type UnplacedPlace } from "../../vocabulary/osm-tags.js";
import type { ImportItem, PlaceRecord } from "../place-record.js";
import { Doubles } from "./doubles.js";

/**
 * Items of the PBF importer in a compact form, to pass them between threads and to keep
 * the places waiting for their point (a country's million ways) compactly. The receiving
 * thread (the one that also writes the database) makes its objects from one `split` and
 * a walk, at a fraction of what a structured clone or `JSON.parse` of the same objects
 * costs it (measured by bench/pbf-transfer.js):
 * - strings: every present text value, joined by NUL, in a fixed order;
 * - numbers (a Float64Array, moved between threads, not copied): each item's kind, which
 *   of a place's optional values are present (a bit each: absent ones cost nothing), the
 *   lengths of its lists, and its coordinates as they are (no number → text → number).
 * A place waiting for its point (`encodeUnplaced`) is one string: its few small numbers
 * go first, as tokens. A value that holds a NUL (possible in OSM, never seen) sends its
 * whole batch as JSON instead.
 */
export interface EncodedItems {
  text: string;
  /** Empty when `text` is JSON (the fallback). */
  numbers: Float64Array;
}

const SEP = "\0";
/** JSON starts with this (an unplaced place's token form starts with a digit). */
const AS_JSON = "J";

const enum Kind {
  Place = 0,
  Locality = 1,
  Skip = 2,
}

/** A place's optional values: one presence bit each (text values in the order of its fields). */
const enum Has {
  Address = 1 << 0,
  Street = 1 << 1,
  Housenumber = 1 << 2,
  Postcode = 1 << 3,
  City = 1 << 4,
  Country = 1 << 5,
  Website = 1 << 6,
  Phone = 1 << 7,
  Email = 1 << 8,
  Cuisine = 1 << 9,
  Brand = 1 << 10,
  Description = 1 << 11,
  OpeningHours = 1 << 12,
  Rating = 1 << 13,
}

class Writer {
  readonly out: string[] = [];
  clean = true;
  /** Numbers go here; without it (an unplaced place's string) they go among the tokens. */
  constructor(private readonly numbers: Doubles | null) {}
  text(value: string): void {
    if (value.includes(SEP)) this.clean = false;
    this.out.push(value);
  }
  number(value: number): void {
    if (this.numbers) this.numbers.push(value);
    else this.out.push(Object.is(value, -0) ? "-0" : String(value));
  }
}

class Reader {
  private i = 0;
  private n = 0;
  constructor(
    private readonly tokens: string[],
    private readonly numbers: Float64Array | null,
  ) {}
  get done(): boolean {
    return this.numbers ? this.n >= this.numbers.length : this.i >= this.tokens.length;
  }
  text(): string {
    return this.tokens[this.i++]!;
  }
  number(): number {
    return this.numbers ? this.numbers[this.n++]! : Number(this.tokens[this.i++]);
  }
  list(length: number): string[] {
    const values = this.tokens.slice(this.i, this.i + length);
    this.i += length;
    return values;
  }
}

type PlaceFields = UnplacedPlace & { lat?: number; lng?: number };

/** A place's fields: its numbers first (presence bits, list lengths), then its text values; the point only for a placed one. */
function writePlace(w: Writer, place: PlaceFields, placed: boolean): void {
  if (place.provenance !== null) w.clean = false; // no OSM place has one
  // Field by field (a loop over field names is a keyed lookup each, measured slower).
  const { address, street, housenumber, postcode, city, country, website, phone, email, cuisine, brand, description, openingHours, rating } = place;
  const mask =
    (address !== null ? Has.Address : 0) | (street !== null ? Has.Street : 0) | (housenumber !== null ? Has.Housenumber : 0) |
    (postcode !== null ? Has.Postcode : 0) | (city !== null ? Has.City : 0) | (country !== null ? Has.Country : 0) |
    (website !== null ? Has.Website : 0) | (phone !== null ? Has.Phone : 0) | (email !== null ? Has.Email : 0) |
    (cuisine !== null ? Has.Cuisine : 0) | (brand !== null ? Has.Brand : 0) | (description !== null ? Has.Description : 0) |
    (openingHours !== null ? Has.OpeningHours : 0) | (rating !== null ? Has.Rating : 0);
  const socials = place.socials === null ? null : Object.entries(place.socials);
  w.number(mask);
  w.number(socials === null ? -1 : socials.length);
  w.number(place.categories.length);
  w.number(place.tags === undefined ? -1 : place.tags.length);
  if (placed) {
    w.number(place.lat!);
    w.number(place.lng!);
  }
  if (rating !== null) w.number(rating);
  w.text(place.placeId);
  w.text(place.name);
  if (address !== null) w.text(address);
  if (street !== null) w.text(street);
  if (housenumber !== null) w.text(housenumber);
  if (postcode !== null) w.text(postcode);
  if (city !== null) w.text(city);
  if (country !== null) w.text(country);
  if (website !== null) w.text(website);
  if (phone !== null) w.text(phone);
  if (email !== null) w.text(email);
  if (socials !== null) {
    for (const [network, url] of socials) {
      w.text(network);
      w.text(url!);
    }
  }
  for (const label of place.categories) w.text(label);
  if (place.tags !== undefined) for (const term of place.tags) w.text(term);
  if (cuisine !== null) w.text(cuisine);
  if (brand !== null) w.text(brand);
  if (description !== null) w.text(description);
  if (openingHours !== null) w.text(openingHours);
}

/**
 * The fields `writePlace` wrote, in the order `osmElementToItem` gives them: a placed
 * place's point read with them, an unplaced one's given (`at`), and its address made from
 * it when its tags made none (as `placeAt` does).
 */
function readPlace(r: Reader, at: { lat: number; lng: number } | null): PlaceRecord {
  const mask = r.number();
  const socialCount = r.number();
  const categoryCount = r.number();
  const tagCount = r.number();
  const lat = at === null ? r.number() : at.lat;
  const lng = at === null ? r.number() : at.lng;
  const rating = mask & Has.Rating ? r.number() : null;
  const placeId = r.text();
  const name = r.text();
  const address = mask & Has.Address ? r.text() : coordinatesAddress(lat, lng);
  const street = mask & Has.Street ? r.text() : null;
  const housenumber = mask & Has.Housenumber ? r.text() : null;
  const postcode = mask & Has.Postcode ? r.text() : null;
  const city = mask & Has.City ? r.text() : null;
  const country = mask & Has.Country ? r.text() : null;
  const website = mask & Has.Website ? r.text() : null;
  const phone = mask & Has.Phone ? r.text() : null;
  const email = mask & Has.Email ? r.text() : null;
  let socials: Record<string, string> | null = null;
  if (socialCount >= 0) {
    socials = {};
    for (let k = 0; k < socialCount; k++) socials[r.text()] = r.text();
  }
  const categories = r.list(categoryCount);
  const tags = tagCount < 0 ? undefined : r.list(tagCount);
  return {
    placeId,
    name,
    address,
    street,
    housenumber,
    postcode,
    city,
    country,
    lat,
    lng,
    website,
    phone,
    email,
    socials,
    rating,
    categories,
    tags,
    cuisine: mask & Has.Cuisine ? r.text() : null,
    brand: mask & Has.Brand ? r.text() : null,
    description: mask & Has.Description ? r.text() : null,
    openingHours: mask & Has.OpeningHours ? r.text() : null,
    provenance: null,
  };
}

export function encodeItems(items: readonly ImportItem[]): EncodedItems {
  const numbers = new Doubles();
  const w = new Writer(numbers);
  for (const item of items) {
    if (item.kind === "place") {
      numbers.push(Kind.Place);
      writePlace(w, item.place, true);
    } else if (item.kind === "locality") {
      const { id, name, kind, lat, lng } = item.locality;
      numbers.push(Kind.Locality);
      numbers.push(lat);
      numbers.push(lng);
      w.text(id);
      w.text(name);
      w.text(kind);
    } else {
      numbers.push(Kind.Skip);
      numbers.push(item.detail === undefined ? 0 : 1);
      w.text(item.reason);
      if (item.detail !== undefined) w.text(item.detail);
    }
  }
  return w.clean ? { text: w.out.join(SEP), numbers: numbers.done() } : { text: AS_JSON + JSON.stringify(items), numbers: new Float64Array(0) };
}

export function decodeItems({ text, numbers }: EncodedItems): ImportItem[] {
  if (numbers.length === 0) return text === "" ? [] : (JSON.parse(text.slice(AS_JSON.length)) as ImportItem[]);
  const r = new Reader(text.split(SEP), numbers);
  const items: ImportItem[] = [];
  while (!r.done) {
    const kind = r.number() as Kind;
    if (kind === Kind.Place) items.push({ kind: "place", place: readPlace(r, null) });
    else if (kind === Kind.Locality) {
      const lat = r.number();
      const lng = r.number();
      items.push({ kind: "locality", locality: { id: r.text(), name: r.text(), kind: r.text() as never, lat, lng } });
    } else {
      const hasDetail = r.number() === 1;
      const reason = r.text() as never;
      items.push(hasDetail ? { kind: "skip", reason, detail: r.text() } : { kind: "skip", reason });
    }
  }
  return items;
}

/** A place waiting for its point, as one string. */
export function encodeUnplaced(place: UnplacedPlace): string {
  const w = new Writer(null);
  writePlace(w, place, false);
  return w.clean ? w.out.join(SEP) : AS_JSON + JSON.stringify(place);
}

/** A place that waited for its point (`encodeUnplaced`), at its point: `placeAt(place, lat, lng)` without the object between. */
export function decodeUnplacedAt(text: string, lat: number, lng: number): PlaceRecord {
  if (text.startsWith(AS_JSON)) return placeAt(JSON.parse(text.slice(AS_JSON.length)) as UnplacedPlace, lat, lng);
  return readPlace(new Reader(text.split(SEP), null), { lat, lng });
}
