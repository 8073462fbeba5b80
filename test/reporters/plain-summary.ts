import type { Reporter, SerializedError, TestModule } from "vitest/node";
import { SKIPPED_WITHOUT_SHARED_DATA } from "./skip-reasons.js";

/**
 * Prints `N passed, N failed` (and `, N skipped`, `, N errors`) alone on the last line, the
 * plain closing line that CI reads to know how many tests ran. Errors outside any test (a
 * type error in a source file, an unhandled rejection) fail the run too, so they count.
 * Tests skipped for want of the real extracts (a bare clone) are named on the line before.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let withoutData = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else {
          skipped++;
          if (test.fullName.includes(SKIPPED_WITHOUT_SHARED_DATA)) withoutData++;
        }
      }
    }
    const errors = unhandledErrors.length;
    if (withoutData) {
      process.stdout.write(`\n${withoutData} test${withoutData === 1 ? "" : "s"} ${SKIPPED_WITHOUT_SHARED_DATA} (../shared/data, or OUTREACH_TEST_SHARED_DATA; see docs/data.md)`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}${errors ? `, ${errors} error${errors === 1 ? "" : "s"}` : ""}\n`);
  }
}
