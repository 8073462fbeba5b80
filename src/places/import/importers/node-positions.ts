/**
 * The positions of the nodes some pending way or relation needs, in typed arrays: the
 * ids are collected first (`want`, 8 bytes each), then sorted and deduplicated once the
 * node pass starts (`set`), with their coordinates beside them (24 bytes per node in
 * all). A country has millions of such nodes: a Map of [lat, lng] pairs held ~130 bytes
 * each and cost a hash lookup for every one of the tens of millions of nodes a file
 * streams past. Nodes come by ascending id in a sorted file, so `set` walks a cursor
 * forward; an unsorted file falls back to binary search.
 */
export class NodePositions {
  private ids: Float64Array<ArrayBufferLike> = new Float64Array(1024);
  private count = 0;
  private sealed = false;
  private lat = new Float64Array(0);
  private lng = new Float64Array(0);
  private cursor = 0;
  private lastId = -Infinity;
  private foundCount = 0;

  /** Ask for a node's position (before the node pass). */
  want(id: number): void {
    if (this.sealed) throw new Error("NodePositions: want() after the node pass started");
    if (this.count === this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.count++] = id;
  }

  /** Distinct nodes asked for. */
  get size(): number {
    this.seal();
    return this.count;
  }

  get found(): number {
    return this.foundCount;
  }

  get allKnown(): boolean {
    return this.foundCount === this.size;
  }

  private seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    this.ids = sharedSortedIds(this.ids.subarray(0, this.count));
    const n = (this.count = this.ids.length);
    this.lat = new Float64Array(n).fill(NaN);
    this.lng = new Float64Array(n).fill(NaN);
  }

  /** The first index whose id is not below `id` (binary search). */
  private lowerBound(id: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(id: number): number {
    // Not ascending: find the place by binary search, then walk on from there.
    if (id < this.lastId) this.cursor = this.lowerBound(id);
    this.lastId = id;
    while (this.cursor < this.count && this.ids[this.cursor]! < id) this.cursor++;
    return this.cursor < this.count && this.ids[this.cursor] === id ? this.cursor : -1;
  }

  /** A node streamed past: kept if asked for (the first position seen wins). */
  set(id: number, lat: number, lng: number): void {
    this.seal();
    const i = this.indexOf(id);
    if (i >= 0) this.setAt(i, lat, lng);
  }

  /** The distinct ids asked for, ascending (after this, no more `want`): what `setAt` indexes. */
  sortedIds(): Float64Array {
    this.seal();
    return this.ids;
  }

  /** The node at `index` of `sortedIds()` streamed past (the first position seen wins). */
  setAt(index: number, lat: number, lng: number): void {
    if (!Number.isNaN(this.lat[index]!)) return;
    this.lat[index] = lat;
    this.lng[index] = lng;
    this.foundCount++;
  }

  /** A node's position, or undefined when it was not asked for or not found (outside a clipped extract). */
  get(id: number): { lat: number; lng: number } | undefined {
    const at = this.indexOfKnown(id);
    return at < 0 ? undefined : { lat: this.lat[at]!, lng: this.lng[at]! };
  }

  /** Where a node's position is (`latAt`, `lngAt`: no object per node), or -1 as `get` gives undefined. */
  indexOfKnown(id: number): number {
    this.seal();
    const lo = this.lowerBound(id);
    return lo >= this.count || this.ids[lo] !== id || Number.isNaN(this.lat[lo]!) ? -1 : lo;
  }
  latAt(index: number): number {
    return this.lat[index]!;
  }
  lngAt(index: number): number {
    return this.lng[index]!;
  }
}

/**
 * Ids sorted ascending without repeats, in a SharedArrayBuffer: the PBF importer's
 * decoding threads all read this one copy (a country's wanted nodes are tens of MB).
 */
export function sharedSortedIds(ids: Float64Array | number[]): Float64Array {
  // A typed array is sorted where it is (its owner is done with it): one copy fewer of a country's ids.
  const sorted = ids instanceof Float64Array ? ids.sort() : Float64Array.from(ids).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i]!;
  const shared = new Float64Array(new SharedArrayBuffer(n * Float64Array.BYTES_PER_ELEMENT));
  shared.set(sorted.subarray(0, n));
  return shared;
}
