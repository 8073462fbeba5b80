import type { Reporter, SerializedError, TestModule } from "vitest/node";

/**
 * Prints `N passed, N failed` (and `, N skipped`, `, N errors`) alone on the last line, the
 * plain closing line that CI reads to know how many tests ran. Errors outside any test (a
 * type error in a source file, an unhandled rejection) fail the run too, so they count.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    const errors = unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}${errors ? `, ${errors} error${errors === 1 ? "" : "s"}` : ""}\n`);
  }
}
