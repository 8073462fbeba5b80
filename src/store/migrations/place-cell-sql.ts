/**
 * A row's grid cell in plain SQL (`row` is "", "new." or "old."): `cellSql` of
 * `src/places/store/geo-grid.ts` as it stood when this index was made, written out so the
 * migrations that index places by cell (019, 030) stand alone. The search reads places by
 * `cellSql`, which must stay equal to it for the indexes to be used: a test checks that they are.
 */
export const placeCellSql = (row: string): string =>
  `max(0, min(17999, CAST((${row}lat + 90) / 0.01 AS INTEGER))) * 24000 + max(0, min(23999, CAST((${row}lng + 180) / 0.015 AS INTEGER)))`;
