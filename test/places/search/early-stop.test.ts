import { describe, expect, it } from "vitest";
import { cellCount, cellsOf, circleCellRanges } from "../../../src/places/store/geo-grid.js";
import { CircleBands } from "../../../src/places/search/circle-bands.js";
import { LocalPlaceProvider } from "../../../src/places/search/local.js";
import type { LeadSort } from "../../../src/places/search/provider.js";
import { createTestInstance } from "../../helpers/instance.js";
import { insertPlaces, offsetKm, testVocabulary, type TestPlace } from "../../helpers/places.js";
import { seeded } from "../../helpers/seeded-random.js";

const signal = new AbortController().signal;

const ORIGIN = { lat: 47.3, lng: 8.5 };

/** Towns of several sizes over ~120 km: where places are, and where searches start. */
function townsOf(random: () => number) {
  return Array.from({ length: 12 }, (_, i) => ({ ...offsetKm(ORIGIN.lat, ORIGIN.lng, (random() - 0.5) * 120, (random() - 0.5) * 120), sigmaKm: 0.8 + 6 / (i + 1), weight: 1 / (i + 1) }));
}

/**
 * Places around those towns, each place a category of the vocabulary (a few with
 * a cuisine), a label the vocabulary does not know (no tags: its words count as a category),
 * or none; names from few surnames, so names repeat; some places twice a few metres apart
 * (one business from two sources: the page drops the second).
 */
function syntheticPlaces(): TestPlace[] {
  const random = seeded(17);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const towns = townsOf(random);
  const total = towns.reduce((s, t) => s + t.weight, 0);
  const kinds: Array<{ categories?: string[]; cuisine?: string; words: string[] }> = [
    { categories: ["restaurant"], words: ["Grill", "Stube", "Kitchen"] },
    { categories: ["restaurant"], cuisine: "italian", words: ["Trattoria", "Pizzeria", "Roma"] },
    { categories: ["cafe"], words: ["Café", "Coffee"] },
    { categories: ["dentist"], words: ["Zahnarztpraxis", "Dental"] },
    { categories: ["bakery"], words: ["Bäckerei", "Backstube"] },
    { categories: ["Müller Spezial"], words: ["Handel"] },
    { words: ["Pizzeria", "Consulting"] },
  ];
  const surnames = ["Müller", "Meier", "Keller", "Weber", "Huber", "Rossi"];
  const places: TestPlace[] = [];
  for (let i = 0; places.length < 6000; i++) {
    let r = random() * total;
    const town = towns.find((t) => (r -= t.weight) <= 0) ?? towns[0]!;
    const kind = kinds[Math.floor(random() * kinds.length)]!;
    const at = offsetKm(town.lat, town.lng, gaussian() * town.sigmaKm, gaussian() * town.sigmaKm);
    const name = `${surnames[Math.floor(random() * surnames.length)]} ${kind.words[Math.floor(random() * kind.words.length)]}`;
    const place: TestPlace = { placeId: `test:${i}`, name, ...at, categories: kind.categories ?? [], cuisine: kind.cuisine ?? null };
    places.push(place);
    if (random() < 0.05) places.push({ ...place, placeId: `test:${i}:again`, ...offsetKm(at.lat, at.lng, 0.005, 0.005) });
  }
  return places;
}

/** Every page of a search, following nextCursor: each page's leads (by place id) and cursor. */
async function allPages(local: LocalPlaceProvider, center: { lat: number; lng: number }, radiusKm: number, keywords: string, sort: LeadSort) {
  const pages: Array<{ leads: string[]; next: string | null; didYouMean: string | null }> = [];
  let cursor: string | null = null;
  do {
    const page = await local.search({ center, radiusKm, keywords, cursor, signal, sort });
    pages.push({ leads: page.leads.map((l) => l.placeId), next: page.nextCursor, didYouMean: page.didYouMean });
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 4);
  return pages;
}

describe("reading a large circle only as far as the page needs", () => {
  it("gives the same pages and next pages as reading the whole circle, for many centres, keywords, radii and orders", async () => {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    insertPlaces(db, syntheticPlaces());
    // A few cells stale, as half-way through an import: their postings come from their places.
    db.prepare("UPDATE places SET name = name || ' Neu' WHERE id % 97 = 0").run();
    const early = new LocalPlaceProvider(db, { vocabulary: testVocabulary });
    const full = new LocalPlaceProvider(db, { vocabulary: testVocabulary, earlyStop: false });
    const random = seeded(2026);
    // Most searches start in a town (the same towns as the places'), some anywhere.
    const towns = townsOf(seeded(17));
    const centres = [
      ORIGIN,
      ...Array.from({ length: 4 }, (_, i) => offsetKm(towns[i % 3]!.lat, towns[i % 3]!.lng, (random() - 0.5) * 4, (random() - 0.5) * 4)),
      ...Array.from({ length: 2 }, () => offsetKm(ORIGIN.lat, ORIGIN.lng, (random() - 0.5) * 160, (random() - 0.5) * 160)),
    ];
    const keywords = ["restaurant", "italian restaurant", "cafe", "dentist", "Müller", "Müller Pizzeria", "pizza", "bakeries keller"];
    let stoppedEarly = 0;
    let compared = 0;
    for (const center of centres) {
      for (const radiusKm of [20, 100]) {
        for (const [k, words] of keywords.entries()) {
          for (const sort of ["relevance", "distance", ...(k % 4 === 0 ? ["name" as const] : [])] as LeadSort[]) {
            const got = await allPages(early, center, radiusKm, words, sort);
            const want = await allPages(full, center, radiusKm, words, sort);
            expect(got, `${words} ${radiusKm} km ${sort} at ${center.lat},${center.lng}`).toEqual(want);
            compared++;
            if (sort !== "name" && !early.headMatches(center, radiusKm, words, { sort, top: 37 }).complete) stoppedEarly++;
          }
        }
      }
    }
    // The comparison means something: many searches did stop early, and pages went deep.
    expect(compared).toBeGreaterThan(200);
    expect(stoppedEarly).toBeGreaterThan(50);
    instance.close();
  }, 120_000);

  it("what a search that stopped early found holds the first places of the whole ranking", () => {
    const instance = createTestInstance();
    insertPlaces(instance.services.deps.db, syntheticPlaces());
    const local = new LocalPlaceProvider(instance.services.deps.db, { vocabulary: testVocabulary });
    const head = local.headMatches(ORIGIN, 100, "restaurant", { sort: "relevance", top: 37 });
    expect(head.complete).toBe(false);
    const all = local.rankedMatches(ORIGIN, 100, "restaurant");
    expect(head.matches.length).toBeLessThan(all.length);
    const order = (a: { score: number; distanceKm: number; id: number }, b: typeof a) => b.score - a.score || a.distanceKm - b.distanceKm || a.id - b.id;
    expect([...head.matches].sort(order).slice(0, 37)).toEqual(all.slice(0, 37));
    instance.close();
  });
});

describe("a plain-name query (no category word) in a large circle", () => {
  /** The synthetic index without the places labelled "Müller Spezial": no place's labels hold "Müller". */
  const unlabelled = () => syntheticPlaces().filter((p) => !p.categories?.includes("Müller Spezial"));
  /** That index, searched as a page is (early stop) and as the whole circle. */
  function unlabelledIndex() {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    insertPlaces(db, unlabelled());
    return { instance, db, early: new LocalPlaceProvider(db, { vocabulary: testVocabulary }), full: new LocalPlaceProvider(db, { vocabulary: testVocabulary, earlyStop: false }) };
  }

  it("reads only as far as the page needs when no place's labels hold the word, and gives the pages of the whole circle", async () => {
    const { instance, db, early, full } = unlabelledIndex();
    const head = early.headMatches(ORIGIN, 100, "Müller", { sort: "relevance", top: 37 });
    const all = early.rankedMatches(ORIGIN, 100, "Müller");
    // The rows read are bounded: a part of the circle's matches, not all of them.
    expect(head.complete).toBe(false);
    expect(head.matches.length).toBeLessThan(all.length / 2);
    for (const sort of ["relevance", "distance"] as const) expect(await allPages(early, ORIGIN, 100, "Müller", sort)).toEqual(await allPages(full, ORIGIN, 100, "Müller", sort));
    instance.close();
  });

  it("a place far out whose labels hold the word comes first: packed (its words listed when its cell is packed) or stale (read from its place)", async () => {
    const { instance, db, early, full } = unlabelledIndex();
    // Packed: written, then its cell rebuilt (insertPlaces refreshes the postings).
    insertPlaces(db, [{ placeId: "test:far-label", name: "Handel Nord", ...offsetKm(ORIGIN.lat, ORIGIN.lng, 85, 0), categories: ["Müller Spezial"] }]);
    const first = await early.search({ center: ORIGIN, radiusKm: 100, keywords: "Müller", cursor: null, signal });
    expect(first.leads[0]!.placeId).toBe("test:far-label");
    expect(await allPages(early, ORIGIN, 100, "Müller", "relevance")).toEqual(await allPages(full, ORIGIN, 100, "Müller", "relevance"));
    // Stale: a label written by SQL (as a bare sqlite3 shell could), its cell not rebuilt yet.
    db.prepare("UPDATE places SET category_text = 'keller' WHERE place_id = 'test:far-label'").run();
    const stale = await early.search({ center: ORIGIN, radiusKm: 100, keywords: "Keller", cursor: null, signal });
    expect(stale.leads[0]!.placeId).toBe("test:far-label");
    expect(await allPages(early, ORIGIN, 100, "Keller", "relevance")).toEqual(await allPages(full, ORIGIN, 100, "Keller", "relevance"));
    instance.close();
  });
});

describe("a circle's bands", () => {
  it("read every cell of the circle exactly once, nearest first", () => {
    const center = { lat: 47.3, lng: 8.5 };
    const cells = circleCellRanges(center, 60, 60_000)!;
    const bands = new CircleBands(center, 60, cells, 60_000);
    const seen: number[] = [];
    let bandsRead = 0;
    // Nothing certain and few places found: each band reaches four times as far.
    while (!bands.done) {
      seen.push(...cellsOf(bands.next()));
      bandsRead++;
      if (!bands.done) expect(bands.settles([{ id: 1, score: 3, distanceKm: 70 }], { sort: "relevance", top: 40 }, 3)).toBe(false);
    }
    expect(bandsRead).toBeGreaterThan(2);
    expect(seen.sort((a, b) => a - b)).toEqual(cellsOf(cells));
    expect(seen.length).toBe(cellCount(cells));
  });

  it("settle once enough places are certain: nearer than the bands read, with the query's best score for relevance", () => {
    const center = { lat: 47.3, lng: 8.5 };
    const cells = circleCellRanges(center, 100, 60_000)!;
    const bands = new CircleBands(center, 100, cells, 60_000);
    bands.next();
    const near = (n: number, score: number, distanceKm = 0.5) => Array.from({ length: n }, (_, id) => ({ id, score, distanceKm }));
    // Two category slots: 6 is the best a place can score.
    expect(bands.settles(near(10, 6), { sort: "relevance", top: 10 }, 6)).toBe(true);
    expect(bands.settles(near(10, 5), { sort: "relevance", top: 10 }, 6)).toBe(false);
    expect(bands.settles(near(10, 5), { sort: "distance", top: 10 }, 6)).toBe(true);
    // Beyond the bands read (the first reaches 100 / 32 km), a nearer unread place may still come first.
    expect(bands.settles(near(10, 6, 3.1), { sort: "distance", top: 10 }, 6)).toBe(true);
    expect(bands.settles(near(10, 6, 3.15), { sort: "distance", top: 10 }, 6)).toBe(false);
    expect(bands.settles(near(10, 6, 99), { sort: "relevance", top: 10 }, 6)).toBe(false);
  });
});
