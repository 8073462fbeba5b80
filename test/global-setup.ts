import { builtBin } from "./helpers/built-bin.js";
// @ts-expect-error a plain ESM build script without type declarations
import { extractTaggingSchema, writeBuiltVocabulary } from "../scripts/tagging-schema.js";

/**
 * Once per test run: dist/ up to date with the sources (a no-op when it is; a fraction of a
 * second when not). Two kinds of test run compiled code: those that spawn `bin/outreach.js`,
 * and every crawl, whose page extraction runs in worker threads loaded from dist/. And the
 * iD tagging schema's extract the category vocabulary reads (`npm ci` writes it through
 * `prepare`; a checkout installed before it existed gets it here, a no-op once there), and
 * the vocabulary built from it into dist/.
 */
export default async function setup(): Promise<void> {
  (extractTaggingSchema as () => boolean)();
  await builtBin();
  // The vocabulary the build ships (a no-op while its stamp is current), which the tests of a fresh machine's search read.
  await (writeBuiltVocabulary as () => Promise<boolean>)();
}
