// Delivery throughput and the cost of DKIM signing.
// 1. Messages per second through a local SMTP sink (127.0.0.1) with signing on, one
//    sending domain, throttles off, 5 connections: the product's delivery loop (claim,
//    render the Liquid and Markdown, compose and sign with the domain's 2048-bit key,
//    hand over, record). Baseline in the same run: a bare nodemailer pool of 5 connections
//    composing and DKIM-signing the same rendered messages (same key, same signed header
//    list) and sending them to the same sink: the relay's speed with the same per-message
//    work and nothing of ours around it. Each side runs `rounds` times, alternating, on
//    fresh data, after a warm-up round; medians are reported, with the load average beside them.
//    Each round of ours is a new delivery loop, as each `outreach deliver` run is; the signing
//    threads are the process's (sharedMessageSigner), warm after the warm-up round as the
//    baseline's main thread is.
// 2. Per message: composing it signed (nodemailer's DKIM option, as the product does)
//    against composing it unsigned, medians over the same messages.
// Run: npm run build && node bench/delivery-speed.js [messages] [rounds]
import { loadavg } from "node:os";
import nodemailer from "nodemailer";
import { openInstance } from "../dist/services/instance.js";
import { createDelivery } from "../dist/services/index.js";
import { relayFromConfig } from "../dist/services/sending/delivery-runtime.js";
import { composeSigned, SIGNED_HEADERS } from "../dist/providers/smtp/message-signer.js";
import { median, sendingDataDir, sinkEnv, startSink } from "./fixtures/sending.js";

const N = Number(process.argv[2] ?? 500);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONNECTIONS = 5;
const sink = await startSink();
const env = { ...sinkEnv(sink), OUTREACH_SMTP_CONNECTIONS: String(CONNECTIONS) };
/** CPU of the whole process (every thread, the in-process sink too) per message since `from`, µs: a figure the machine's load does not skew as much as time. */
const cpuOf = (from) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / N;
};
const cpuUs = { ours: [], pool: [] };
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

/** One run of the delivery loop over a fresh data directory; its time, ms. */
async function ours() {
  const { dataDir } = await sendingDataDir({ contacts: N, env });
  const instance = openInstance({ dataDir, env });
  const relay = relayFromConfig(instance.services);
  const delivery = createDelivery(instance.services, { relay, log: () => {} });
  sink.reset();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await delivery.runUntilEmpty();
  const ms = performance.now() - started;
  cpuUs.ours.push(cpuOf(cpu));
  await relay.close();
  instance.close();
  if (result.sent !== N || sink.total() !== N) throw new Error(`expected ${N} sent, got ${result.sent} (sink ${sink.total()})`);
  return ms;
}

// The same messages, rendered once, for the baseline and the signing comparison.
const { dataDir } = await sendingDataDir({ contacts: N, env });
const instance = openInstance({ dataDir, env });
const { services } = instance;
const teamId = services.deps.db.prepare("SELECT id FROM teams LIMIT 1").pluck().get();
const domainId = services.deps.db.prepare("SELECT id FROM sending_domains LIMIT 1").pluck().get();
const campaign = services.deps.db.prepare("SELECT * FROM campaigns LIMIT 1").get();
const key = services.sendingDomains.dkimSigningKey(teamId, domainId);
const sender = services.sendingDomains.sender(teamId, domainId);
const brand = services.brand.forTeam(teamId);
const contactIds = services.deps.db.prepare("SELECT id FROM contacts").pluck().all();
const messages = [];
for (const [i, id] of contactIds.entries()) {
  messages.push(await services.messages.build({ campaign, executionId: `exe_bench${i}`, contact: services.contacts.get(teamId, id), sender, brand }));
}
const dkim = { domainName: key.domain, keySelector: key.selector, privateKey: key.privateKeyPem };

/** The baseline: a bare nodemailer pool composing and signing the rendered messages; its time, ms. */
async function pool() {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true, pool: true, maxConnections: CONNECTIONS, dkim: { ...dkim, headerFieldNames: SIGNED_HEADERS } });
  sink.reset();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(messages.map((m) => transport.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, headers: m.headers, envelope: m.envelope })));
  const ms = performance.now() - started;
  cpuUs.pool.push(cpuOf(cpu));
  transport.close();
  if (sink.total() !== N) throw new Error(`baseline: expected ${N} at the sink, got ${sink.total()}`);
  return ms;
}

const oursMs = [];
const poolMs = [];
const ratios = [];
// Round 0 warms both sides up (JIT, the signing threads' first start) and is not counted.
for (let round = 0; round <= ROUNDS; round++) {
  const p = await pool();
  const o = await ours();
  if (round === 0) {
    console.log(`  warm-up: ours ${(o / 1000).toFixed(2)} s, baseline ${(p / 1000).toFixed(2)} s (not counted)`);
    continue;
  }
  poolMs.push(p);
  oursMs.push(o);
  ratios.push(p / o);
  console.log(`  round ${round}: ours ${(o / 1000).toFixed(2)} s, baseline ${(p / 1000).toFixed(2)} s, ratio ${(p / o).toFixed(2)}x (load ${load()})`);
}

// 2. Signing cost per message.
const unsigned = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
const signedUs = [];
const plainUs = [];
for (const m of messages) {
  let t = performance.now();
  await composeSigned({ ...m, date: new Date() }, { rsa: dkim });
  signedUs.push((performance.now() - t) * 1000);
  t = performance.now();
  await unsigned.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, headers: m.headers, envelope: m.envelope });
  plainUs.push((performance.now() - t) * 1000);
}
instance.close();
await sink.close();

const rate = (ms) => (N / (ms / 1000)).toFixed(0);
console.log(`delivery to a local SMTP sink: ${N} messages, DKIM (2048-bit) on, throttles off, ${CONNECTIONS} connections each, median of ${ROUNDS} (load ${load()})`);
console.log(`  ours (claim, render, compose and sign, send, record): ${rate(median(oursMs))} msg/s`);
console.log(`  baseline (a bare nodemailer pool composing and signing the same rendered messages): ${rate(median(poolMs))} msg/s`);
console.log(`  CPU per message (all threads, the sink included), median: ours ${median(cpuUs.ours.slice(1)).toFixed(0)} µs, baseline ${median(cpuUs.pool.slice(1)).toFixed(0)} µs`);
console.log(`  ratio ours/baseline: median ${median(ratios).toFixed(2)}x (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")})`);
console.log(`composing one message (median of ${N}): signed ${median(signedUs).toFixed(0)} µs, unsigned ${median(plainUs).toFixed(0)} µs`);
console.log(`  DKIM signing costs ${(median(signedUs) - median(plainUs)).toFixed(0)} µs a message; signed/unsigned ${(median(signedUs) / median(plainUs)).toFixed(2)}x`);
