/**
 * The dates a file name carries: the one grammar both a file's data date and its revision
 * of a region's series (`extract-series.ts`) are read with. A full date is 2026-03-29 or
 * 20260329 anywhere in the name; Geofabrik's dated copies end their stem in yymmdd
 * (germany-251120.osm.pbf); a month alone is 2019-04.
 */
const YEAR = String.raw`(?:19|20)\d{2}`;
const MONTH = String.raw`(?:0[1-9]|1[0-2])`;
const DAY = String.raw`(?:0[1-9]|[12]\d|3[01])`;
/** A full date, its parts captured: year, month, day. */
export const FULL_DATE = String.raw`(${YEAR})-?(${MONTH})-?(${DAY})`;
/** Geofabrik's yymmdd, its parts captured: year in the century, month, day. */
export const SHORT_DATE = String.raw`(\d{2})(${MONTH})(${DAY})`;

const FULL_IN_NAME = new RegExp(String.raw`(?:^|\D)${FULL_DATE}(?:\D|$)`);
/** yymmdd at the end of the stem, before the extension: only there is six digits a date. */
const SHORT_AT_STEM_END = new RegExp(String.raw`[-_.]${SHORT_DATE}\.[A-Za-z]`);
const MONTH_IN_NAME = new RegExp(String.raw`(?:^|\D)(${YEAR})-(${MONTH})(?:\D|$)`);

/** The data date from a file name: "liechtenstein-2026-03-29.osm.pbf" → "2026-03-29", "germany-251120.osm.pbf" → "2025-11-20", "helsinki-2019-04" → "2019-04". */
export function dateFromFileName(fileName: string): string | null {
  const full = FULL_IN_NAME.exec(fileName);
  if (full) return `${full[1]}-${full[2]}-${full[3]}`;
  const short = SHORT_AT_STEM_END.exec(fileName);
  if (short) return `20${short[1]}-${short[2]}-${short[3]}`;
  const month = MONTH_IN_NAME.exec(fileName);
  return month ? `${month[1]}-${month[2]}` : null;
}

/** Seconds since the epoch → YYYY-MM-DD (UTC). */
export function dateFromEpochSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}
