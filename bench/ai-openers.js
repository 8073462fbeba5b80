// Openers for 200 contacts against the Chat Completions stub (test/helpers/chat-completions-server.js)
// answering each request after 300 ms: wall time with OUTREACH_AI_CONCURRENCY (default 4)
// against one request at a time (concurrency 1) in the same run, the most requests the stub
// ever had in flight (must not exceed the setting), and the tokens per opener from `usage`.
// Run: npm run build && node bench/ai-openers.js [contacts] [latencyMs] [concurrency]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openInstance } from "../dist/services/instance.js";
import { startChatServer } from "../test/helpers/chat-completions-server.js";

const N = Number(process.argv[2] ?? 200);
const LATENCY_MS = Number(process.argv[3] ?? 300);
const CONCURRENCY = Number(process.argv[4] ?? 4);

/** A model that writes one sentence from the facts it was given. */
function respond(request) {
  const facts = JSON.parse(/Recipient facts \(JSON\): (\{.*\})/.exec(request.body.messages[1].content)[1]);
  return { content: { opener: `${facts.name} caught our eye: ${facts.description.toLowerCase()}.` } };
}

/** Openers for N contacts with `concurrency` requests in flight, in a fresh data directory. */
async function run(concurrency) {
  const stub = await startChatServer({ respond, latencyMs: LATENCY_MS });
  const dir = mkdtempSync(join(tmpdir(), "outreach-bench-ai-"));
  const env = { OUTREACH_AI_URL: stub.url, OUTREACH_AI_MODEL: "stub-model", OUTREACH_AI_CONCURRENCY: String(concurrency) };
  const instance = openInstance({ dataDir: dir, env, config: { rateLimitPerMinute: 0, enrich: false } });
  try {
    const { services } = instance;
    const boot = services.identity.bootstrap({ name: "Ada", email: "ada@example.com", team: "Acme", plan: "self-hosted" });
    const principal = services.auth.authenticate(`Bearer ${boot.token}`);
    services.brand.update(principal, { brandName: "Crumb & Co", brandDescription: "A family bakery delivering bread to cafés." });
    for (let i = 0; i < N; i++) {
      services.contacts.add(boot.team.id, { email: `owner${i}@cafe${i}.test`, name: `Café ${i}`, description: `Espresso bar number ${i} near the station`, tags: ["cafes"] });
    }
    const campaign = await services.campaigns.create(principal, { name: "Bread", type: "one-time", subject: "Bread", bodyMarkdown: "{{ contact.opener }}" });
    const started = performance.now();
    const result = await services.openers.generate(principal, campaign.id, { tags: ["cafes"] });
    const ms = performance.now() - started;
    if (result.generated !== N || result.failed.length) throw new Error(`expected ${N} openers, got ${result.generated} (${result.failed.length} failed)`);
    return { ms, maxInFlight: stub.maxInFlight, requests: stub.requests.length, usage: result.usage };
  } finally {
    instance.close();
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sequential = await run(1);
const concurrent = await run(CONCURRENCY);
const perOpener = (u) => `${(u.promptTokens / N).toFixed(0)} prompt + ${(u.completionTokens / N).toFixed(0)} completion`;
console.log(`openers for ${N} contacts, stub latency ${LATENCY_MS} ms per request`);
console.log(`  one at a time:        ${(sequential.ms / 1000).toFixed(2)} s (${sequential.requests} requests, max in flight ${sequential.maxInFlight})`);
console.log(`  concurrency ${CONCURRENCY}:        ${(concurrent.ms / 1000).toFixed(2)} s (${concurrent.requests} requests, max in flight ${concurrent.maxInFlight})`);
console.log(`  speed-up: ${(sequential.ms / concurrent.ms).toFixed(2)}x (target >= 4x); in flight never above ${CONCURRENCY}: ${concurrent.maxInFlight <= CONCURRENCY ? "yes" : "NO"}`);
console.log(`  tokens per opener (stub usage, ~4 chars a token): ${perOpener(concurrent.usage)}`);
if (concurrent.maxInFlight > CONCURRENCY) process.exitCode = 1;
