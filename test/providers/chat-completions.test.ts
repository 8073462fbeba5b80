import { describe, expect, it } from "vitest";
import { ChatCompletionsClient } from "../../src/providers/ai/chat-completions.js";
import { retryAfterMs } from "../../src/core/retry-after.js";
import { parseJsonAnswer } from "../../src/providers/ai/json-answer.js";
import { inOrder, startChatStub, type ChatStub } from "../helpers/chat-completions-stub.js";

const MESSAGES = [
  { role: "system" as const, content: "Answer with JSON." },
  { role: "user" as const, content: "Say hello." },
];

function client(stub: ChatStub, options: { timeoutMs?: number; key?: string | null; log?: (l: string) => void; debug?: boolean } = {}) {
  return new ChatCompletionsClient({ url: stub.url, key: options.key === undefined ? "sk-test-key" : options.key, model: "stub-model", timeoutMs: options.timeoutMs ?? 10_000, debug: options.debug, log: options.log });
}

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (err) {
    return err as { code: string; status: number; message: string };
  }
  throw new Error("expected a failure");
}

describe("the Chat Completions client", () => {
  it("posts model, messages and response_format json_object with the bearer key, and reads content and usage", async () => {
    const stub = await startChatStub({ respond: () => ({ content: { hello: "world" } }) });
    const answer = await client(stub).completeJson(MESSAGES);
    expect(answer.json).toEqual({ hello: "world" });
    expect(answer.model).toBe("stub-model");
    expect(answer.usage.promptTokens).toBeGreaterThan(0);
    expect(answer.usage.completionTokens).toBeGreaterThan(0);
    expect(stub.requests).toHaveLength(1);
    const [request] = stub.requests;
    expect(request!.headers.authorization).toBe("Bearer sk-test-key");
    expect(request!.body).toMatchObject({ model: "stub-model", messages: MESSAGES, response_format: { type: "json_object" } });
  });

  it("sends no Authorization header without a key (local servers)", async () => {
    const stub = await startChatStub({ respond: () => ({ content: {} }) });
    await client(stub, { key: null }).completeJson(MESSAGES);
    expect(stub.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("retries once without response_format when the server refuses it, and keeps it off for later calls", async () => {
    const stub = await startChatStub({
      respond: (request) => (request.body.response_format ? { status: 400, body: { error: { message: "response_format is not supported" } } } : { content: "```json\n{\"a\": 1}\n```" }),
    });
    const ai = client(stub);
    expect((await ai.completeJson(MESSAGES)).json).toEqual({ a: 1 });
    await ai.completeJson(MESSAGES);
    expect(stub.requests.map((r) => r.body.response_format?.type ?? null)).toEqual(["json_object", null, null]);
  });

  it("waits Retry-After on 429 and retries, at most 3 attempts in all", async () => {
    const stub = await startChatStub({ respond: inOrder({ status: 429, headers: { "retry-after": "0" } }, { status: 503 }, { content: { done: true } }) });
    expect((await client(stub).completeJson(MESSAGES)).json).toEqual({ done: true });
    expect(stub.requests).toHaveLength(3);

    const storm = await startChatStub({ respond: () => ({ status: 429, headers: { "retry-after": "0" }, body: { error: { message: "slow down" } } }) });
    const err = await failure(client(storm).completeJson(MESSAGES));
    expect(err).toMatchObject({ code: "provider_error", status: 502 });
    expect(err.message).toContain("answered 429 after 3 attempts: slow down");
    expect(storm.requests).toHaveLength(3);
  });

  it("gives up at once when Retry-After asks for longer than the time left", async () => {
    const stub = await startChatStub({ respond: () => ({ status: 429, headers: { "retry-after": "120" } }) });
    const err = await failure(client(stub, { timeoutMs: 5_000 }).completeJson(MESSAGES));
    expect(err.status).toBe(502);
    expect(err.message).toContain("asked to wait 120 s");
    expect(stub.requests).toHaveLength(1);
  });

  it("ends a hanging request at OUTREACH_AI_TIMEOUT_MS with a 502", async () => {
    const stub = await startChatStub({ respond: () => ({ hang: true }) });
    const err = await failure(client(stub, { timeoutMs: 300 }).completeJson(MESSAGES));
    expect(err).toMatchObject({ code: "provider_error", status: 502 });
    expect(err.message).toContain("no answer within 300 ms");
  });

  it("retries a refused connection within the budget, then names the server", async () => {
    const stub = await startChatStub();
    const url = stub.url;
    await stub.close();
    const ai = new ChatCompletionsClient({ url, key: null, model: "stub-model", timeoutMs: 10_000 });
    const err = await failure(ai.completeJson(MESSAGES));
    expect(err).toMatchObject({ code: "provider_error", status: 502 });
    expect(err.message).toContain(`the server at ${new URL(url).host} could not be reached`);
  });

  it("does not retry a 401 and names the server's message", async () => {
    const stub = await startChatStub({ respond: () => ({ status: 401, body: { error: { message: "Incorrect API key provided" } } }) });
    const err = await failure(client(stub).completeJson(MESSAGES));
    expect(err.message).toContain("answered 401: Incorrect API key provided");
    expect(stub.requests).toHaveLength(1);
  });

  it("logs prompts and answers only with debug on", async () => {
    const stub = await startChatStub({ respond: () => ({ content: { secret: "answer text" } }) });
    const quiet: string[] = [];
    await client(stub, { log: (l) => quiet.push(l) }).completeJson(MESSAGES);
    expect(quiet).toEqual([]);
    const loud: string[] = [];
    await client(stub, { log: (l) => loud.push(l), debug: true }).completeJson(MESSAGES);
    expect(loud.join("\n")).toContain("Say hello.");
    expect(loud.join("\n")).toContain("answer text");
  });
});

describe("tolerant JSON answers", () => {
  it("takes the first balanced object out of fences and prose", () => {
    expect(parseJsonAnswer('Sure! Here it is:\n```json\n{"subject": "Hi {brace}", "n": {"x": 1}}\n```\nEnjoy.')).toEqual({ subject: "Hi {brace}", n: { x: 1 } });
    expect(parseJsonAnswer('Text {"a": "b \\" }"} more {"c": 2}')).toEqual({ a: 'b " }' });
    expect(parseJsonAnswer("I would write a friendly email about cakes.")).toBeUndefined();
    expect(parseJsonAnswer('{"subject": "unterminated')).toBeUndefined();
    expect(parseJsonAnswer("[1, 2]")).toBeUndefined();
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(retryAfterMs("Sun, 22 Nov 2026 10:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
