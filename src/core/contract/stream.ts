/**
 * One line of an NDJSON answer: `progress` lines, then exactly one `complete` or `error`
 * line (docs/api.md, "NDJSON"). The server writes them, the client reads them; an error
 * line's `code` maps to an HTTP status through `statusOfCode` (core/errors.ts), so a
 * failure in a stream is reported like the same failure before it.
 */
export type StreamLine<Progress = unknown, Complete = unknown> =
  | { type: "progress"; data: Progress }
  | { type: "complete"; data: Complete }
  | ErrorLine;

export interface ErrorLine {
  type: "error";
  error: string;
  code: string;
  /** The caller's quota, on the lead search's and the enrichment retry's error lines. */
  quota?: unknown;
}
