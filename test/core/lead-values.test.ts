import { describe, expect, test } from "vitest";
import {
  cleanCategories,
  cleanCountry,
  cleanEmail,
  cleanPhone,
  cleanSocial,
  cleanWebsite,
  domainOf,
  formatAddress,
  toLead,
  validCoordinates,
} from "../../src/core/lead-values.js";

describe("lead value cleaning, one rule per field", () => {
  test("a website without a scheme gets https://; garbage and non-web schemes are dropped", () => {
    expect(cleanWebsite("www.pizzeriatoscana.li")).toBe("https://www.pizzeriatoscana.li/");
    expect(cleanWebsite("http://example.com/a b")).toBe("http://example.com/ab");
    expect(cleanWebsite("https://a.li;https://b.li")).toBe("https://a.li/");
    expect(cleanWebsite("n/a")).toBeNull();
    expect(cleanWebsite("ftp://example.com")).toBeNull();
    expect(cleanWebsite("https://user:pw@example.com")).toBeNull();
    expect(cleanWebsite("https://" + "a".repeat(2100) + ".com")).toBeNull();
    // An IP address is a host like any other here: the fetcher's address policy decides what may be fetched.
    expect(cleanWebsite("http://203.0.113.7:8080/")).toBe("http://203.0.113.7:8080/");
    expect(cleanWebsite("https://localhost/")).toBeNull();
    expect(cleanWebsite(42)).toBeNull();
  });

  test("the domain is the website's host, lower case, without www. or a trailing dot", () => {
    expect(domainOf("https://www.kunstmuseum.li/de")).toBe("kunstmuseum.li");
    expect(domainOf("https://WWW.Example.COM./x")).toBe("example.com");
    expect(domainOf(null)).toBeNull();
  });

  test("phones keep their formatting, need 5+ digits, and never exceed 64 characters", () => {
    expect(cleanPhone(" +423 373 95 09 ")).toBe("+423 373 95 09");
    expect(cleanPhone("+41 44 123 45 67;+41 79 000 00 00")).toBe("+41 44 123 45 67");
    expect(cleanPhone("call us")).toBeNull();
    expect(cleanPhone("123")).toBeNull();
    expect(cleanPhone("+1 " + "2".repeat(70))).toBeNull();
  });

  test("emails lose mailto:, keep the local part's case, lower-case the domain, need a real TLD", () => {
    expect(cleanEmail("mailto:Info@Example.LI")).toBe("Info@example.li");
    expect(cleanEmail("logo@2x.png")).toBeNull();
    expect(cleanEmail("not an email")).toBeNull();
  });

  test("socials accept profile URLs and bare handles, never share links or other networks", () => {
    expect(cleanSocial("facebook", "PizzeriaToscana")).toBe("https://www.facebook.com/PizzeriaToscana");
    expect(cleanSocial("instagram", "@acme")).toBe("https://www.instagram.com/acme");
    expect(cleanSocial("facebook", "https://www.facebook.com/acme?ref=tracking")).toBe("https://www.facebook.com/acme");
    expect(cleanSocial("facebook", "https://www.facebook.com/sharer.php?u=x")).toBeNull();
    expect(cleanSocial("twitter", "https://x.com/acme")).toBe("https://x.com/acme");
    expect(cleanSocial("linkedin", "https://instagram.com/acme")).toBeNull();
  });

  test("categories are deduplicated, each 1..80 characters, at most 30", () => {
    const many = Array.from({ length: 40 }, (_, i) => `label ${i}`);
    expect(cleanCategories(["dentist", "Dentist", " ", "x".repeat(100)])).toEqual(["dentist", "x".repeat(80)]);
    expect(cleanCategories(many)).toHaveLength(30);
  });

  test("country is kept only as ISO alpha-2", () => {
    expect(cleanCountry("li")).toBe("LI");
    expect(cleanCountry("Liechtenstein")).toBeNull();
  });

  test("the address is never empty: street line, else city/postcode, else country, else coordinates", () => {
    const base = { street: null, housenumber: null, postcode: null, city: null, country: null, lat: 47.1, lng: 9.5 };
    expect(formatAddress({ ...base, street: "Städtle", housenumber: "32", postcode: "9490", city: "Vaduz" })).toBe("Städtle 32, 9490 Vaduz");
    expect(formatAddress({ ...base, city: "Vaduz" })).toBe("Vaduz");
    expect(formatAddress({ ...base, country: "LI" })).toBe("LI");
    expect(formatAddress(base)).toBe("47.10000, 9.50000");
  });
});

describe("toLead: a business from any source as a Lead", () => {
  const raw = { placeId: "osm:node:1", name: "  Zahnarzt   Huber ", address: "Städtle 1, 9490 Vaduz", lat: 47.14, lng: 9.52 };

  test("applies the same rules as the importers: https for a bare website, its domain, strict phone and email", () => {
    expect(
      toLead({
        ...raw,
        website: "zahnarzt-huber.li",
        phone: "call us",
        email: "mailto:Praxis@Zahnarzt-Huber.LI",
        rating: "4.5",
        categories: ["dentist", "Dentist", 7],
        socials: { facebook: "zahnarzthuber", twitter: "not a url", myspace: "https://myspace.com/x" },
      }),
    ).toEqual({
      placeId: "osm:node:1",
      name: "Zahnarzt Huber",
      address: "Städtle 1, 9490 Vaduz",
      lat: 47.14,
      lng: 9.52,
      website: "https://zahnarzt-huber.li/",
      domain: "zahnarzt-huber.li",
      phone: null,
      rating: 4.5,
      categories: ["dentist"],
      email: "Praxis@zahnarzt-huber.li",
      socials: { facebook: "https://www.facebook.com/zahnarzthuber" },
    });
  });

  test("a value the importers stored comes back unchanged", () => {
    const stored = { ...raw, name: "Zahnarzt Huber", website: "https://www.zahnarzt-huber.li/", phone: "+423 232 00 00", email: "praxis@zahnarzt-huber.li" };
    expect(toLead(stored)).toMatchObject({ website: stored.website, phone: stored.phone, email: stored.email, name: stored.name });
  });

  test("drops a lead without a place ID, a name, an address or a valid point; (0,0) is not a point", () => {
    expect(toLead({ ...raw, placeId: "" })).toBeUndefined();
    expect(toLead({ ...raw, name: "   " })).toBeUndefined();
    expect(toLead({ ...raw, address: null })).toBeUndefined();
    expect(toLead({ ...raw, address: null, fallbackAddress: "9490 Vaduz LI" })?.address).toBe("9490 Vaduz LI");
    expect(toLead({ ...raw, lat: 91 })).toBeUndefined();
    expect(toLead({ ...raw, lat: 0, lng: 0 })).toBeUndefined();
    expect(validCoordinates(0, 0)).toBe(false);
    expect(validCoordinates(0, 9.5)).toBe(true);
  });
});
