import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isIn } from "@rapideditor/country-coder";
import { isBusinessKey, isBusinessTerm, isQualifierKey, tagTerm } from "./place-tags.js";
import { NSI_DATA, packageDir, phraseKey } from "./vocabulary-build.js";

interface NsiItem {
  displayName?: string;
  matchNames?: string[];
  locationSet?: { include?: Array<string | number | number[]>; exclude?: Array<string | number | number[]> };
  tags?: Record<string, string>;
}

interface Brand {
  terms: string[];
  include: string[];
  exclude: string[];
}

/** Location codes country-coder understands: ISO and M49 codes, "001" (the world), not custom GeoJSON shapes or circles. */
function codes(list: Array<string | number | number[]> | undefined): string[] {
  return (list ?? []).filter((c): c is string | number => !Array.isArray(c)).map(String).filter((c) => !c.endsWith(".geojson"));
}

/**
 * The name-suggestion-index (npm `name-suggestion-index`) as a brand → category look-up:
 * "Starbucks" is `amenity=cafe` + `cuisine=coffee_shop`, "Lidl" a supermarket. The import
 * uses it for places that come without a category of their own (a CSV row with only a
 * name, an OSM `shop=yes`), where the brand is the only thing that says what they are.
 * Brands are matched by any of their names (folded like the search's words) and only
 * where they exist: the entry's `locationSet` must include the place's position (by
 * country-coder, offline); a name with brands of different categories there is left
 * alone.
 *
 * Loaded on first use (≈ 12 MB of JSON) and kept for the process.
 */
export class BrandIndex {
  private readonly byName = new Map<string, Brand[]>();

  private constructor(nsi: Record<string, { items: NsiItem[] }>) {
    for (const [path, category] of Object.entries(nsi)) {
      if (!path.startsWith("brands/")) continue;
      for (const item of category.items) {
        const tags = item.tags ?? {};
        const terms = Object.entries(tags)
          .filter(([key, value]) => (isBusinessKey(key) || isQualifierKey(key)) && value !== "yes")
          .flatMap(([key, value]) => value.split(";").map((v) => tagTerm(key, v)));
        if (!terms.some(isBusinessTerm)) continue;
        const brand: Brand = { terms, include: codes(item.locationSet?.include), exclude: codes(item.locationSet?.exclude) };
        const names = new Set([item.displayName, tags.name, tags.brand, ...(item.matchNames ?? [])].filter((n): n is string => !!n).map(phraseKey));
        for (const name of names) {
          if (!name) continue;
          const list = this.byName.get(name) ?? [];
          list.push(brand);
          this.byName.set(name, list);
        }
      }
    }
  }

  private static instance: BrandIndex | undefined;

  static shared(): BrandIndex {
    if (!BrandIndex.instance) {
      const json = JSON.parse(readFileSync(join(packageDir("name-suggestion-index"), NSI_DATA), "utf8")) as { nsi: Record<string, { items: NsiItem[] }> };
      BrandIndex.instance = new BrandIndex(json.nsi);
    }
    return BrandIndex.instance;
  }

  /** The category terms of the brand a place's name (or brand) names at its position, or [] when none or ambiguous. */
  tagsOf(names: ReadonlyArray<string | null | undefined>, point: { lat: number; lng: number }): string[] {
    const location: [number, number] = [point.lng, point.lat];
    for (const name of names) {
      if (!name) continue;
      const brands = (this.byName.get(phraseKey(name)) ?? []).filter(
        (b) => (b.include.length === 0 || b.include.some((c) => isIn(location, c))) && !b.exclude.some((c) => isIn(location, c)),
      );
      if (brands.length === 0) continue;
      const main = (b: Brand) => b.terms.filter(isBusinessTerm).sort().join(" ");
      if (brands.some((b) => main(b) !== main(brands[0]!))) return [];
      return brands[0]!.terms;
    }
    return [];
  }
}
