import { cellSql } from "./geo-grid.js";
import { searchTokens } from "./search-tokens.js";
import type { Db } from "../../store/connection.js";

/**
 * The words of places' labels (`places.category_text`: the labels their category tags do
 * not say, a list's "Müller Spezial"), index-wide, in `place_label_words` (migration 030).
 * Why: a plain word of a query ("Müller", no category of the vocabulary) scores a category
 * match only at a place whose labels hold it as a whole word (`slotKind`); where no place's
 * labels do, the best it can score is a name match, and a search of a large circle can stop
 * once enough places score that near the centre (`CircleBands`) instead of reading the
 * whole circle.
 *
 * The list must hold every label word of every packed cell (stale cells are read whole in
 * a search's first band, from their places): the postings' chunk writer adds a chunk's
 * label words in the transaction that makes its cells fresh (`addFromCells`), found through
 * an index of the labelled places only (most places' labels are all said by their tags).
 * Words are never taken out: a word no place has any more only costs that query the early
 * stop, never a wrong page.
 */
export class PlaceLabelWords {
  private readonly insert;
  private readonly ofCells;
  private readonly anyOf;

  /** Undefined on a database before migration 030 (the older migrations that pack postings run there). */
  static of(db: Db): PlaceLabelWords | undefined {
    return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'place_label_words'").get() ? new PlaceLabelWords(db) : undefined;
  }

  private constructor(private readonly db: Db) {
    this.insert = db.prepare("INSERT OR IGNORE INTO place_label_words (word) VALUES (?)");
    // `places_labelled_by_cell` (migration 030): the labelled places of some cells, no other row read.
    this.ofCells = db
      .prepare(`SELECT DISTINCT category_text FROM places WHERE ${cellSql("lat", "lng")} IN (SELECT value FROM json_each(?)) AND category_text <> ''`)
      .pluck();
    this.anyOf = db.prepare("SELECT EXISTS (SELECT 1 FROM place_label_words WHERE word IN (SELECT value FROM json_each(?)))").pluck();
  }

  /** Whether any place's labels may hold one of these words (folded, as `searchTokens` makes them). */
  holdsAny(words: readonly string[]): boolean {
    return words.length > 0 && this.anyOf.get(JSON.stringify(words)) === 1;
  }

  /** Adds the label words of the places in these cells (a JSON array of cell ids). */
  addFromCells(cellsJson: string): void {
    this.addAll(this.ofCells.all(cellsJson) as string[]);
  }

  /** Adds the words of every labelled place (migration 030). */
  addFromEveryPlace(): void {
    this.addAll(this.db.prepare("SELECT DISTINCT category_text FROM places WHERE category_text <> ''").pluck().all() as string[]);
  }

  private addAll(texts: readonly string[]): void {
    const words = new Set<string>();
    for (const text of texts) for (const word of searchTokens(text)) words.add(word);
    for (const word of words) this.insert.run(word);
  }
}
