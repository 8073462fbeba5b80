/** The data date from a file name: "liechtenstein-2026-03-29.osm.pbf" → "2026-03-29", "helsinki-2019-04" → "2019-04". */
export function dateFromFileName(fileName: string): string | null {
  const full = /(?:^|\D)((?:19|20)\d{2})-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?:\D|$)/.exec(fileName);
  if (full) return `${full[1]}-${full[2]}-${full[3]}`;
  const month = /(?:^|\D)((?:19|20)\d{2})-(0[1-9]|1[0-2])(?:\D|$)/.exec(fileName);
  return month ? `${month[1]}-${month[2]}` : null;
}

/** Seconds since the epoch → YYYY-MM-DD (UTC). */
export function dateFromEpochSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}
