import { circleBoxes, distanceKm, type BoundingBox, type LatLng } from "../../core/geo.js";
import { POSTING_STRIDE } from "../store/postings-codec.js";
import { CATEGORIZED } from "../store/place-terms.js";
import type { QuerySlot } from "./keywords.js";
import { HIT_NAME, slotKind, wordHits } from "./slot-match.js";

/** A match with what the ranking orders it by. */
export interface Ranked {
  id: number;
  score: number;
  distanceKm: number;
}

type Growable = Float64Array | Uint32Array | Uint8Array;
function grown<A extends Growable>(array: A, length: number): A {
  const bigger = new (array.constructor as new (n: number) => A)(length);
  bigger.set(array as ArrayLike<number> & A);
  return bigger;
}

/**
 * The places of a circle that a query's slots reach, accumulated from the term index's
 * postings ([place, lat, lng, fields, flags] records) into flat typed arrays: thousands
 * of places, no object each, and small hot loops the JIT keeps optimised.
 *
 * Only the first slot's postings admit places (a place without it cannot match), each on
 * its first posting and only when inside the strict circle (inline box test, then the
 * haversine); the other postings mark places already admitted. Per (place, slot) it keeps
 * which of the slot's tag terms the place has and its best word hit, and `results()`
 * applies `slotKind` (see `slot-match.ts`): the same rule the text fallback applies.
 */
export class TermMatches {
  private readonly slotOf = new Map<number, number>();
  private count = 0;
  private places = new Float64Array(0);
  private distances = new Float64Array(0);
  private categorized = new Uint8Array(0);
  /** Per (place, slot): bits over the slot's tag terms. */
  private tagMasks = new Uint32Array(0);
  /** Per (place, slot): its word hits (`wordHits` bits). */
  private hits = new Uint8Array(0);
  private readonly nameHitCounts: number[];
  private readonly box: BoundingBox;
  private readonly wrapped: BoundingBox | undefined;
  private readonly point = { lat: 0, lng: 0 };

  constructor(
    private readonly center: LatLng,
    private readonly radiusKm: number,
    private readonly slots: readonly QuerySlot[],
  ) {
    this.nameHitCounts = slots.map(() => 0);
    [this.box, this.wrapped] = circleBoxes(center, radiusKm) as [BoundingBox, BoundingBox | undefined];
  }

  /** Room for `more` places beyond those admitted so far (before adding postings that admit). */
  reserve(more: number): void {
    const need = this.count + more;
    if (need <= this.places.length) return;
    const width = this.slots.length;
    this.places = grown(this.places, need);
    this.distances = grown(this.distances, need);
    this.categorized = grown(this.categorized, need);
    this.tagMasks = grown(this.tagMasks, need * width);
    this.hits = grown(this.hits, need * width);
  }

  /** The slot of a posting's place: admitted now if `admit` and inside the circle; -1 otherwise. */
  private slotFor(values: Float64Array, r: number, admit: boolean): number {
    const slot = this.slotOf.get(values[r]!);
    if (slot !== undefined) return slot;
    return admit ? this.admit(values[r]!, values[r + 1]!, values[r + 2]!, values[r + 4]!) : -1;
  }

  /** Postings of tag term number `bit` of slot `s`. */
  addTags(values: Float64Array, s: number, bit: number, admit: boolean): void {
    const width = this.slots.length;
    const mask = 1 << bit;
    for (let r = 0; r < values.length; r += POSTING_STRIDE) {
      const slot = this.slotFor(values, r, admit);
      if (slot >= 0) this.tagMasks[slot * width + s]! |= mask;
    }
  }

  /** Postings of one word of slot `s`: the keyword itself (`exact`) or a longer word, reached by a strong prefix or not. */
  addWords(values: Float64Array, s: number, exact: boolean, strongPrefix: boolean, admit: boolean): void {
    const width = this.slots.length;
    for (let r = 0; r < values.length; r += POSTING_STRIDE) {
      const hits = wordHits(values[r + 3]!, exact, strongPrefix);
      if (hits === 0) continue;
      const slot = this.slotFor(values, r, admit);
      if (slot < 0) continue;
      const i = slot * width + s;
      if (!(this.hits[i]! & HIT_NAME) && hits & HIT_NAME) this.nameHitCounts[s]!++;
      this.hits[i]! |= hits;
    }
  }

  /** How many admitted places have a name or brand hit for slot `s` (none: its hosts need no reading). */
  nameHits(s: number): number {
    return this.nameHitCounts[s]!;
  }

  /** The slot of a place inside the circle, or -1 (cells overhang the circle). */
  private admit(place: number, lat: number, lng: number, flags: number): number {
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
    this.categorized[slot] = flags & CATEGORIZED ? 1 : 0;
    return slot;
  }

  /** How many places have been admitted so far (the circle read by bands: where a band's places start). */
  get admitted(): number {
    return this.count;
  }

  /**
   * Places every slot matched, with their relevance (the sum of the slots' kinds) and
   * distance, in no order: those admitted from the `from`-th on (a band's: a place's
   * postings all lie in its own cell, so once its band is read its relevance is final).
   */
  results(from = 0): Ranked[] {
    const width = this.slots.length;
    const ranked: Ranked[] = [];
    for (let slot = from; slot < this.count; slot++) {
      let score = 0;
      for (let s = 0; s < width; s++) {
        const i = slot * width + s;
        const kind = slotKind(this.slots[s]!, this.tagMasks[i]!, this.hits[i]!, this.categorized[slot] === 1);
        if (kind === 0) {
          score = 0;
          break;
        }
        score += kind;
      }
      if (score > 0) ranked.push({ id: this.places[slot]!, score, distanceKm: this.distances[slot]! });
    }
    return ranked;
  }
}
