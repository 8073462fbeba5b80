import { describe, expect, it } from "vitest";
import { Interrupted, wasInterrupted } from "../../src/cli/interrupt.js";
import { cliEnv, runCli } from "../helpers/cli.js";

describe("the one interrupt path (src/cli/interrupt.ts)", () => {
  it("tells Ctrl-C from other aborts: only an abort with Interrupted is an interruption", () => {
    const interrupted = new AbortController();
    interrupted.abort(new Interrupted());
    const other = new AbortController();
    other.abort();
    expect(wasInterrupted(interrupted.signal)).toBe(true);
    expect(wasInterrupted(other.signal)).toBe(false);
    expect(wasInterrupted(new AbortController().signal)).toBe(false);
    expect(wasInterrupted(undefined)).toBe(false);
  });

  it("a command that returns normally after Ctrl-C still exits 130 with the one line", async () => {
    const controller = new AbortController();
    controller.abort(new Interrupted());
    // `completion` never looks at the signal: it prints its script and returns.
    const result = await runCli(["completion", "bash"], { signal: controller.signal, env: cliEnv() });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe("interrupted\n");
  });

  it("a command that fails because of the abort exits 130 with the one line, not its error", async () => {
    const controller = new AbortController();
    controller.abort(new Interrupted());
    const result = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentist"], { signal: controller.signal, env: cliEnv({ OUTREACH_ENRICH: "0" }) });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/(^|\n)interrupted\n$/);
    expect(result.stderr).not.toMatch(/error|AbortError/i);
  });
});
