import type { LatLng } from "../../core/geo.js";
import { cellCount, circleCellRanges, rangesIntersection, rangesMinus, type CellRanges } from "../store/geo-grid.js";
import type { LeadSort } from "./provider.js";
import { CATEGORY_MATCH, NAME_MATCH } from "./slot-match.js";
import type { QuerySlot } from "./keywords.js";
import type { Ranked } from "./term-matches.js";

/**
 * What a page needs of the ranking: its first `top` matches in `sort` order (the page,
 * the room for duplicates, and one more that says whether a next page exists).
 */
export interface EarlyStop {
  sort: Exclude<LeadSort, "name">;
  top: number;
}

/** Circles of fewer cells (~12 km of radius) are read at once: a few hundred seeks, bands would add more than they save. */
const MIN_BANDED_CELLS = 500;

/** The first band's radius, as a share of the circle's. */
const FIRST_BAND = 1 / 32;

/**
 * Slack for the grid and the postings' rounded coordinates (1e-7 degrees, ~1 cm): a place
 * outside the cells within r is taken to be no nearer than r minus this.
 */
const SLACK_KM = 0.001;

/**
 * A large circle read in bands outward from the centre, so that a search reads only as
 * much of it as its page needs. After the bands up to radius r, every place not yet read
 * lies in a cell that holds no point within r of the centre (`circleCellRanges` lists
 * every cell that can), so it is farther than r; and no place can score more than the
 * query's best (`bestScore`): CATEGORY_MATCH per slot, but NAME_MATCH for a plain word
 * ("Müller") that no place's labels hold (only a label can make it a category match, see
 * `slotKind` and `place-label-words.ts`). A place already read with
 * that score nearer than r therefore comes before every unread place in the relevance
 * order (score, then distance), and any place nearer than r before them in the distance
 * order; once `top` places are that certain, the first `top` of the places read are the
 * first `top` of the whole circle, and the rest need not be read. Each band's radius
 * follows from how many certain places the last one found (places grow with the area).
 * The `name` order gives no such bound: it reads the whole circle.
 */
/**
 * The most a place can score for these slots: CATEGORY_MATCH per slot, but NAME_MATCH for a
 * plain word (no category of the vocabulary) when `labelsHold` says no place's labels hold
 * any of its exact words: then only a name can match it, at best exactly.
 */
export function bestScore(slots: readonly QuerySlot[], labelsHold: (words: readonly string[]) => boolean): number {
  let best = 0;
  for (const slot of slots) best += slot.concept || labelsHold(slot.exactWords) ? CATEGORY_MATCH : NAME_MATCH;
  return best;
}

export class CircleBands {
  /** Whether a circle of these cells is worth reading in bands. */
  static worthIt(cells: CellRanges): boolean {
    return cellCount(cells) >= MIN_BANDED_CELLS;
  }

  private readCells: CellRanges = [];
  private readKm = 0;
  private nextKm: number;
  /** Places certain after the last band. */
  private certain = 0;
  done = false;

  constructor(
    private readonly center: LatLng,
    private readonly radiusKm: number,
    private readonly cells: CellRanges,
    private readonly maxCells: number,
  ) {
    this.nextKm = radiusKm * FIRST_BAND;
  }

  /** The next band's cells: those within the next radius not read yet (the rest of the circle in the last band). */
  next(): CellRanges {
    const within = this.nextKm < this.radiusKm ? circleCellRanges(this.center, this.nextKm, this.maxCells) : undefined;
    if (!within) {
      this.done = true;
      this.readKm = this.radiusKm;
      return rangesMinus(this.cells, this.readCells);
    }
    const reached = rangesIntersection(this.cells, within);
    const band = rangesMinus(reached, this.readCells);
    // Cells read before and not within `reached` (none, circles grow row by row) are only read again.
    this.readCells = reached;
    this.readKm = this.nextKm;
    return band;
  }

  /**
   * Whether the places read so far (every match of the bands read) hold the first
   * `stop.top` of the whole circle's ranking; if not, sizes the next band. `best`: the most
   * any place can score for the query (`bestScore`).
   */
  settles(found: readonly Ranked[], stop: EarlyStop, best: number): boolean {
    const reachKm = this.readKm - SLACK_KM;
    let certain = 0;
    for (const r of found) if (r.distanceKm < reachKm && (stop.sort === "distance" || r.score >= best)) certain++;
    if (certain >= stop.top) return true;
    // More certain places than after the last band: as far as the certain places per area
    // suggest, at least twice as far. None added (places cluster in towns: the next had better
    // reach far): four times as far while few places match at all; once many do and none has
    // the query's best score (a plain name: "Müller"), the rest of the circle at once, since
    // such a query likely reads it all anyway.
    const grow =
      certain > this.certain ? Math.max(2, Math.sqrt(stop.top / certain) * 1.25) : certain > 0 || found.length < stop.top ? 4 : Infinity;
    this.certain = certain;
    const km = this.readKm * grow;
    this.nextKm = km > this.radiusKm * 0.7 ? this.radiusKm : km;
    return false;
  }
}
