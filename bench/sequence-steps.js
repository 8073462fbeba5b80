// What a follow-up step costs the delivery loop.
// 1. Step 0 of a campaign with one follow-up: each `sent` also creates the next step in
//    the same transaction. Baseline in the same run: the same delivery of a campaign
//    without follow-ups (a fresh data directory each round, before or after by turns).
// 2. The follow-ups themselves (threaded: the earlier Message-IDs looked up, `Re:` subject,
//    In-Reply-To/References signed), made due at once, against the same baseline.
// 3. The creation of a next step alone (the extra SQL of a sent step), in microseconds, against
//    an empty immediate transaction: the figure that the end-to-end rates hide in their noise.
// A local SMTP sink on 127.0.0.1, DKIM on, throttles off.
// Run: npm run build && node bench/sequence-steps.js [messages] [rounds]
import { openInstance } from "../dist/services/instance.js";
import { createDelivery } from "../dist/services/index.js";
import { relayFromConfig } from "../dist/services/sending/delivery-runtime.js";
import { median, sendingDataDir, sinkEnv, startSink } from "./fixtures/sending.js";

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 5);
const sink = await startSink();
const env = sinkEnv(sink);

/** Deliver what is due in `dataDir` (after `prepare`), timed; checks the count. */
async function deliver(dataDir, expected, prepare = () => {}) {
  const instance = openInstance({ dataDir, env });
  try {
    prepare(instance.services.deps.db);
    const relay = relayFromConfig(instance.services);
    const delivery = createDelivery(instance.services, { relay, log: () => {} });
    sink.reset();
    const started = performance.now();
    const result = await delivery.runUntilEmpty();
    const ms = performance.now() - started;
    await relay.close();
    if (result.sent !== expected || sink.total() !== expected) throw new Error(`expected ${expected} sent, got ${result.sent} (sink ${sink.total()})`);
    return { ms, db: instance.services.deps.db };
  } finally {
    instance.close();
  }
}

const followUps = [{ delay: "P1D", bodyMarkdown: "Just bringing this back to the top of your inbox, {{ contact.name }}." }];
const times = { baseline: [], stepZero: [], stepOne: [] };
for (let round = 0; round < ROUNDS; round++) {
  // Alternating which goes first, so warm-up and a busy neighbour favour neither side.
  const runBaseline = async () => times.baseline.push((await deliver((await sendingDataDir({ contacts: N, env })).dataDir, N)).ms);
  if (round % 2 === 0) await runBaseline();
  const sequence = await sendingDataDir({ contacts: N, env, followUps });
  times.stepZero.push((await deliver(sequence.dataDir, N)).ms);
  times.stepOne.push(
    (
      await deliver(sequence.dataDir, N, (db) => {
        const created = db.prepare("SELECT count(*) FROM campaign_executions WHERE step = 1 AND status = 'pending'").pluck().get();
        if (created !== N) throw new Error(`expected ${N} follow-ups created, found ${created}`);
        // Due now instead of in a day.
        db.prepare("UPDATE campaign_executions SET not_before = ? WHERE step = 1").run(new Date().toISOString());
      })
    ).ms,
  );
  if (round % 2 === 1) await runBaseline();
}
await sink.close();

// 3. The step creation alone, per sent message: one immediate transaction each, as in the loop.
const creation = await sendingDataDir({ contacts: N, env, followUps });
const instance = openInstance({ dataDir: creation.dataDir, env });
const { db } = instance.services.deps;
const stamp = new Date().toISOString();
db.prepare("UPDATE campaign_executions SET status = 'sent', sent_at = ?, message_id = '<' || id || '@acme-dental.test>'").run(stamp);
const ids = db.prepare("SELECT id FROM campaign_executions WHERE step = 0").pluck().all();
const createUs = [];
const emptyUs = [];
for (const id of ids) {
  let t = performance.now();
  db.transaction(() => instance.services.sequences.afterSent(id, stamp)).immediate();
  createUs.push((performance.now() - t) * 1000);
  t = performance.now();
  db.transaction(() => undefined).immediate();
  emptyUs.push((performance.now() - t) * 1000);
}
if (db.prepare("SELECT count(*) FROM campaign_executions WHERE step = 1").pluck().get() !== N) throw new Error("step creation missed some");
instance.close();

const rate = (ms) => (N / (ms / 1000)).toFixed(0);
const baselineMs = median(times.baseline);
const all = (xs) => xs.map((ms) => (ms / 1000).toFixed(2)).join(", ");
console.log(`sequences: ${N} contacts, one follow-up, DKIM on, throttles off, median of ${ROUNDS} rounds`);
console.log(`  baseline (a campaign without follow-ups): ${rate(baselineMs)} msg/s (runs: ${all(times.baseline)} s)`);
console.log(`  step 0, creating each next step in the sent transaction: ${rate(median(times.stepZero))} msg/s, ${(baselineMs / median(times.stepZero)).toFixed(2)}x the baseline (runs: ${all(times.stepZero)} s)`);
console.log(`  creating a next step: ${median(createUs).toFixed(0)} µs a sent message in its own transaction (an empty transaction: ${median(emptyUs).toFixed(0)} µs), median of ${N}`);
console.log(`  step 1, threaded (References looked up, Re: subject): ${rate(median(times.stepOne))} msg/s, ${(baselineMs / median(times.stepOne)).toFixed(2)}x the baseline (runs: ${all(times.stepOne)} s)`);
