import { builtBin } from "./helpers/built-bin.js";

/**
 * Once per test run: dist/ up to date with the sources (a no-op when it is; a fraction of a
 * second when not). Two kinds of test run compiled code: those that spawn `bin/outreach.js`,
 * and every crawl, whose page extraction runs in worker threads loaded from dist/.
 */
export default async function setup(): Promise<void> {
  await builtBin();
}
