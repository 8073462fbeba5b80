import type { UnplacedPlace } from "../osm-tags.js";
import type { ImportItem, PlaceRecord } from "../place-record.js";

/**
 * Items of the PBF importer as one string, to pass them between threads and to keep the
 * places waiting for their point (a country's million ways) compactly. Every value is a
 * token in a fixed order, tokens joined by NUL: the receiving thread makes its objects
 * from one `split` and a walk, at a fraction of what a structured clone or `JSON.parse`
 * of the same objects costs it (measured by bench/pbf-transfer.js). A value that holds a
 * NUL (possible in OSM, never seen) sends its whole batch as JSON instead.
 */

const SEP = "\0";
/** The token of a null (a value that is exactly this goes as JSON too). */
const NULL = "\u0001";
/** A batch sent as JSON starts with this (a token stream starts with an item's kind: p, l or s). */
const AS_JSON = "J";

class Tokens {
  readonly out: string[] = [];
  clean = true;
  text(value: string): void {
    if (value === NULL || value.includes(SEP)) this.clean = false;
    this.out.push(value);
  }
  nullable(value: string | null | undefined): void {
    if (value === null || value === undefined) this.out.push(NULL);
    else this.text(value);
  }
  number(value: number | null): void {
    this.out.push(value === null ? NULL : Object.is(value, -0) ? "-0" : String(value));
  }
  list(values: readonly string[] | undefined): void {
    if (values === undefined) return void this.out.push("-1");
    this.out.push(String(values.length));
    for (const value of values) this.text(value);
  }
}

class Reader {
  i = 0;
  constructor(private readonly tokens: string[]) {}
  get done(): boolean {
    return this.i >= this.tokens.length;
  }
  text(): string {
    return this.tokens[this.i++]!;
  }
  nullable(): string | null {
    const token = this.tokens[this.i++]!;
    return token === NULL ? null : token;
  }
  number(): number | null {
    const token = this.tokens[this.i++]!;
    return token === NULL ? null : Number(token);
  }
  list(): string[] | undefined {
    const n = Number(this.tokens[this.i++]);
    if (n < 0) return undefined;
    const values = this.tokens.slice(this.i, this.i + n);
    this.i += n;
    return values;
  }
}

/** A place's fields, with its point (a place) or without (an unplaced place: its point tokens are null). */
function writePlace(t: Tokens, place: UnplacedPlace & { lat?: number; lng?: number }): void {
  if (place.provenance !== null) t.clean = false; // no OSM place has one
  t.text(place.placeId);
  t.text(place.name);
  t.nullable(place.address);
  t.nullable(place.street);
  t.nullable(place.housenumber);
  t.nullable(place.postcode);
  t.nullable(place.city);
  t.nullable(place.country);
  t.number(place.lat ?? null);
  t.number(place.lng ?? null);
  t.nullable(place.website);
  t.nullable(place.phone);
  t.nullable(place.email);
  const socials = place.socials === null ? null : Object.entries(place.socials);
  t.out.push(socials === null ? "-1" : String(socials.length));
  for (const [network, url] of socials ?? []) {
    t.text(network);
    t.text(url!);
  }
  t.number(place.rating);
  t.list(place.categories);
  t.list(place.tags);
  t.nullable(place.cuisine);
  t.nullable(place.brand);
  t.nullable(place.description);
  t.nullable(place.openingHours);
}

/** The fields `writePlace` wrote, in the order `osmElementToItem` gives them (lat and lng null for an unplaced place). */
function readPlace(r: Reader): PlaceRecord {
  const placeId = r.text();
  const name = r.text();
  const address = r.nullable()!;
  const street = r.nullable();
  const housenumber = r.nullable();
  const postcode = r.nullable();
  const city = r.nullable();
  const country = r.nullable();
  const lat = r.number()!;
  const lng = r.number()!;
  const website = r.nullable();
  const phone = r.nullable();
  const email = r.nullable();
  const socialCount = Number(r.text());
  let socials: Record<string, string> | null = null;
  if (socialCount >= 0) {
    socials = {};
    for (let k = 0; k < socialCount; k++) socials[r.text()] = r.text();
  }
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
    rating: r.number(),
    categories: r.list()!,
    tags: r.list(),
    cuisine: r.nullable(),
    brand: r.nullable(),
    description: r.nullable(),
    openingHours: r.nullable(),
    provenance: null,
  };
}

export function encodeItems(items: readonly ImportItem[]): string {
  const t = new Tokens();
  for (const item of items) {
    if (item.kind === "place") {
      t.out.push("p");
      writePlace(t, item.place);
    } else if (item.kind === "locality") {
      const { id, name, kind, lat, lng } = item.locality;
      t.out.push("l");
      t.text(id);
      t.text(name);
      t.text(kind);
      t.number(lat);
      t.number(lng);
    } else {
      t.out.push("s");
      t.text(item.reason);
      t.nullable(item.detail);
    }
  }
  return t.clean ? t.out.join(SEP) : AS_JSON + JSON.stringify(items);
}

export function decodeItems(text: string): ImportItem[] {
  if (text === "") return [];
  if (text.startsWith(AS_JSON)) return JSON.parse(text.slice(1)) as ImportItem[];
  const r = new Reader(text.split(SEP));
  const items: ImportItem[] = [];
  while (!r.done) {
    const kind = r.text();
    if (kind === "p") items.push({ kind: "place", place: readPlace(r) });
    else if (kind === "l") {
      items.push({ kind: "locality", locality: { id: r.text(), name: r.text(), kind: r.text() as never, lat: r.number()!, lng: r.number()! } });
    } else {
      const reason = r.text() as never;
      const detail = r.nullable();
      items.push(detail === null ? { kind: "skip", reason } : { kind: "skip", reason, detail });
    }
  }
  return items;
}

/** A place waiting for its point, as one string. */
export function encodeUnplaced(place: UnplacedPlace): string {
  const t = new Tokens();
  writePlace(t, place);
  return t.clean ? t.out.join(SEP) : AS_JSON + JSON.stringify(place);
}

export function decodeUnplaced(text: string): UnplacedPlace {
  if (text.startsWith(AS_JSON)) return JSON.parse(text.slice(1)) as UnplacedPlace;
  const { lat: _lat, lng: _lng, ...place } = readPlace(new Reader(text.split(SEP)));
  return place;
}
