import { circleBoxes, distanceKm, type BoundingBox, type LatLng } from "../../core/geo.js";
import { SEARCH_FIELDS } from "../../core/search-tokens.js";
import { POSTING_STRIDE } from "../../store/place-postings.js";
import { FIELD_BASE, UNPACKED } from "../../store/place-terms.js";
import { fieldTermScore } from "./keywords.js";

const FIELDS = SEARCH_FIELDS.length;

/** A match with what the ranking orders it by. */
export interface Ranked {
  id: number;
  score: number;
  distanceKm: number;
}

type Growable = Float64Array | Int32Array | Uint32Array | Uint8Array;
function grown<A extends Growable>(array: A, length: number): A {
  const bigger = new (array.constructor as new (n: number) => A)(length);
  bigger.set(array as ArrayLike<number> & A);
  return bigger;
}

/**
 * The places of a circle that a search's terms reach, accumulated from the terms'
 * postings ([place, lat, lng, tf, words] records) into flat typed arrays: thousands of
 * places, no object each, and a small hot `add` loop that the JIT keeps optimised.
 *
 * Only the first term admits places (a place without it cannot match), each on its first
 * posting and only when inside the strict circle (inline box test, then the haversine);
 * later terms mark the places they reach. Per (place, term, field) it sums the word
 * counts and whether one of the words was the keyword itself, so `results()` scores with
 * the scorer's own `fieldTermScore`, fields and terms in the scorer's order: the same
 * number, to the last bit, as scoring the place's text.
 */
export class TermMatches {
  private readonly slotOf = new Map<number, number>();
  private count = 0;
  private places = new Float64Array(0);
  private distances = new Float64Array(0);
  private lengths = new Float64Array(0);
  private matched = new Int32Array(0);
  /** Matching words per (slot, term, field). */
  private tfs = new Uint32Array(0);
  /** 1 when one of them is the keyword itself. */
  private exacts = new Uint8Array(0);
  private readonly width: number;
  private readonly box: BoundingBox;
  private readonly wrapped: BoundingBox | undefined;
  private readonly point = { lat: 0, lng: 0 };

  constructor(
    private readonly center: LatLng,
    private readonly radiusKm: number,
    private readonly termCount: number,
  ) {
    if (termCount > 30) throw new Error("at most 30 terms (one bit each)");
    this.width = termCount * FIELDS;
    [this.box, this.wrapped] = circleBoxes(center, radiusKm) as [BoundingBox, BoundingBox | undefined];
  }

  /** Room for `more` places beyond those admitted so far (before adding first-term postings). */
  reserve(more: number): void {
    const need = this.count + more;
    if (need <= this.places.length) return;
    this.places = grown(this.places, need);
    this.distances = grown(this.distances, need);
    this.lengths = grown(this.lengths, need);
    this.matched = grown(this.matched, need);
    this.tfs = grown(this.tfs, need * this.width);
    this.exacts = grown(this.exacts, need * this.width);
  }

  /** One BLOB's postings of term `t`; `exact` when their word is the keyword or one of its stems. */
  add(values: Float64Array, exact: boolean, t: number): void {
    const bit = 1 << t;
    for (let r = 0; r < values.length; r += POSTING_STRIDE) {
      const place = values[r]!;
      let slot = this.slotOf.get(place);
      if (slot === undefined) {
        if (t > 0) continue;
        slot = this.admit(place, values[r + 1]!, values[r + 2]!, values[r + 4]!);
        if (slot < 0) continue;
      }
      this.matched[slot]! |= bit;
      const tf = values[r + 3]!;
      if (tf !== UNPACKED) this.addCounts(slot * this.width + t * FIELDS, tf, exact);
    }
  }

  /** The slot of a place inside the circle, or -1 (cells overhang the circle). */
  private admit(place: number, lat: number, lng: number, lengths: number): number {
    const { box, wrapped } = this;
    if (lat < box.minLat || lat > box.maxLat) return -1;
    if ((lng < box.minLng || lng > box.maxLng) && (!wrapped || lng < wrapped.minLng || lng > wrapped.maxLng)) return -1;
    this.point.lat = lat;
    this.point.lng = lng;
    const d = distanceKm(this.center, this.point);
    if (d > this.radiusKm) return -1;
    if (this.count === this.places.length) this.reserve(Math.max(16, this.count));
    const slot = this.count++;
    this.slotOf.set(place, slot);
    this.places[slot] = place;
    this.distances[slot] = d;
    this.lengths[slot] = lengths;
    return slot;
  }

  /** Add the base-1024 digits of a packed `tf` (the word's count per field). */
  private addCounts(base: number, tf: number, exact: boolean): void {
    let rest = tf;
    for (let f = 0; f < FIELDS && rest > 0; f++) {
      // floor and a multiply instead of `%`: a double's `%` is a call to fmod. Exact, as
      // the packed values are integers below 2^50 and FIELD_BASE a power of two.
      const next = Math.floor(rest / FIELD_BASE);
      const n = rest - next * FIELD_BASE;
      rest = next;
      if (n === 0) continue;
      this.tfs[base + f]! += n;
      if (exact) this.exacts[base + f] = 1;
    }
  }

  /** The distance of an admitted place. */
  distanceOf(place: number): number {
    return this.distances[this.slotOf.get(place)!]!;
  }

  /**
   * Places every term reached, scored, in no order; and the ids of those whose counts did
   * not fit the index's packing (a field of 1,024+ words), which the caller scores from
   * their text.
   */
  results(): { ranked: Ranked[]; unpacked: number[] } {
    const all = 2 ** this.termCount - 1;
    const ranked: Ranked[] = [];
    const unpacked: number[] = [];
    const words = new Float64Array(FIELDS);
    for (let slot = 0; slot < this.count; slot++) {
      if (this.matched[slot] !== all) continue;
      const lengths = this.lengths[slot]!;
      if (lengths === UNPACKED) {
        unpacked.push(this.places[slot]!);
        continue;
      }
      for (let f = 0, rest = lengths; f < FIELDS; f++) {
        const next = Math.floor(rest / FIELD_BASE);
        words[f] = rest - next * FIELD_BASE;
        rest = next;
      }
      const score = this.score(words, slot * this.width);
      if (score !== undefined) ranked.push({ id: this.places[slot]!, score, distanceKm: this.distances[slot]! });
    }
    return { ranked, unpacked };
  }

  /** `relevanceScorer`'s sum from the counts: terms in order, fields in order, the same `fieldTermScore`. */
  private score(words: Float64Array, base: number): number | undefined {
    let total = 0;
    for (let t = 0; t < this.termCount; t++) {
      let termScore = 0;
      for (let f = 0; f < FIELDS; f++) {
        const i = base + t * FIELDS + f;
        const tf = this.tfs[i]!;
        if (words[f] === 0 || tf === 0) continue;
        termScore += fieldTermScore(f, tf, words[f]!, this.exacts[i] === 1);
      }
      if (termScore === 0) return undefined;
      total += termScore;
    }
    return total;
  }
}
