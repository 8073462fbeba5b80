/**
 * The words a test's name carries when it skips because the real extracts beside the
 * repository (../shared/data) are missing, as in a bare clone: the summary reporter
 * counts those skips under them (test/helpers/places-data.ts appends them).
 */
export const SKIPPED_WITHOUT_SHARED_DATA = "skipped: needs the real extracts";
