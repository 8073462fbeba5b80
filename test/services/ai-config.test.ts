import { describe, expect, it } from "vitest";
import { AiModel } from "../../src/services/sending/ai-model.js";
import { loadServerConfig } from "../../src/services/config.js";

describe("OUTREACH_AI_* settings", () => {
  it("reads the model settings with their defaults, and refuses bad values naming the variable", () => {
    expect(loadServerConfig({}).ai).toEqual({ url: null, key: null, model: null, timeoutMs: 60_000, concurrency: 4, debug: false });
    const ai = loadServerConfig({ OUTREACH_AI_URL: "http://127.0.0.1:11434/v1/", OUTREACH_AI_MODEL: " llama3.1:8b ", OUTREACH_AI_CONCURRENCY: "8", OUTREACH_AI_DEBUG: "1" }).ai;
    expect(ai).toMatchObject({ url: "http://127.0.0.1:11434/v1", model: "llama3.1:8b", key: null, concurrency: 8, debug: true });
    expect(() => loadServerConfig({ OUTREACH_AI_URL: "ftp://x/v1" })).toThrow(/OUTREACH_AI_URL must be an http:\/\/ or https:\/\/ URL/);
    expect(() => loadServerConfig({ OUTREACH_AI_TIMEOUT_MS: "0" })).toThrow(/OUTREACH_AI_TIMEOUT_MS must be an integer from 100 to 600000/);
    expect(() => loadServerConfig({ OUTREACH_AI_CONCURRENCY: "100" })).toThrow(/OUTREACH_AI_CONCURRENCY must be an integer from 1 to 64/);
    expect(() => loadServerConfig({ OUTREACH_AI_DEBUG: "maybe" })).toThrow(/OUTREACH_AI_DEBUG must be 0 or 1/);
  });

  it("names exactly the variables that are missing (503 ai_not_configured)", () => {
    const settings = loadServerConfig({}).ai;
    const missing = (s: typeof settings) => {
      try {
        new AiModel(s).require();
      } catch (err) {
        return err as { code: string; status: number; message: string };
      }
      throw new Error("expected a failure");
    };
    expect(missing(settings)).toMatchObject({ code: "ai_not_configured", status: 503 });
    expect(missing(settings).message).toContain("(OUTREACH_AI_URL and OUTREACH_AI_MODEL unset)");
    expect(missing({ ...settings, url: "http://127.0.0.1:1/v1" }).message).toContain("(OUTREACH_AI_MODEL unset)");
    expect(new AiModel({ ...settings, url: "http://127.0.0.1:1/v1", model: "m" }).require().model).toBe("m");
  });
});
