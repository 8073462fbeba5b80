// A protocol-faithful stub of the OpenAI Chat Completions API on 127.0.0.1, for the tests
// (through chat-completions-stub.ts, which closes it after each test) and bench/ai-openers.js:
// `POST /v1/chat/completions` answers `chat.completion` objects with `usage` (or, with
// `stream: true`, `chat.completion.chunk` SSE events ending in `data: [DONE]`), and the
// faults a real server has: 429 with Retry-After, 500, a hang, prose or broken JSON as
// content, a 400 to `response_format`. Every request is recorded, and the most requests
// ever in flight at once. Types: chat-completions-server.d.ts.
import { createServer } from "node:http";

/** Rough token counts, like a tokenizer's order of magnitude: 4 characters a token. */
const tokens = (text) => Math.max(1, Math.ceil(text.length / 4));

/** Answers in order from `replies`; the last one repeats. */
export function inOrder(...replies) {
  return (_request, index) => replies[Math.min(index, replies.length - 1)];
}

export async function startChatServer(options = {}) {
  let responder = options.respond ?? (() => ({ content: { ok: true } }));
  const requests = [];
  let inFlight = 0;
  const stub = { maxInFlight: 0 };
  const hanging = new Set();

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
        return;
      }
      const recorded = { path: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
      const index = requests.push(recorded) - 1;
      inFlight++;
      stub.maxInFlight = Math.max(stub.maxInFlight, inFlight);
      res.on("close", () => inFlight--);
      let reply;
      try {
        reply = responder(recorded, index);
      } catch (err) {
        // A responder bug answers like a broken server, never a hang.
        reply = { status: 500, body: { error: { message: `stub responder failed: ${err.message}` } } };
      }
      if ("hang" in reply) {
        hanging.add(res);
        return;
      }
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers }).end(JSON.stringify(reply.body ?? { error: { message: `stub status ${reply.status}` } }));
        return;
      }
      const latency = reply.latencyMs ?? options.latencyMs ?? 0;
      if (latency) await new Promise((r) => setTimeout(r, latency));
      const content = typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content);
      const usage = {
        prompt_tokens: tokens(recorded.body.messages.map((m) => m.content).join("\n")),
        completion_tokens: tokens(content),
        total_tokens: 0,
      };
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
      const id = `chatcmpl-stub${index}`;
      const created = Math.floor(Date.now() / 1000);
      if (recorded.body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const chunk = (delta, finish) =>
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: recorded.body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: "assistant", content: "" }, null));
        for (let i = 0; i < content.length; i += 16) res.write(chunk({ content: content.slice(i, i + 16) }, null));
        res.write(chunk({}, "stop"));
        res.end("data: [DONE]\n\n");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: recorded.body.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage,
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address()).port}/v1`;
  const close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(() => resolve()));
  };
  return {
    server,
    url,
    requests,
    get maxInFlight() {
      return stub.maxInFlight;
    },
    respond(next) {
      responder = next;
    },
    env: (extra = {}) => ({ OUTREACH_AI_URL: url, OUTREACH_AI_MODEL: "stub-model", OUTREACH_AI_KEY: "sk-test-key", ...extra }),
    close,
  };
}
