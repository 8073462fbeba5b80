import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // dist/ written once before any test: spawned `bin/` and the extraction workers run it.
    globalSetup: ["./test/global-setup.ts"],
    reporters: ["default", "./test/reporters/plain-summary.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores on CI: more workers than that only adds contention.
    maxWorkers: 2,
    // Type tests (`*.test-d.ts`): tsc checks them, and with them every source file they reach.
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "test/types/tsconfig.json" },
  },
});
