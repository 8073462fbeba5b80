// Delivery throughput and the cost of DKIM signing.
// 1. Messages per second through a local SMTP sink (127.0.0.1) with signing on, one
//    sending domain, throttles off: the product's delivery loop (claim, render the Liquid
//    and Markdown, sign with the domain's 2048-bit key, hand over, record). Baseline in the
//    same run: nodemailer's own SMTP pool sending the same number of pre-built messages to
//    the same sink (the relay's speed, with nothing of ours around it).
// 2. Per message: composing it signed (nodemailer's DKIM option, as the product does)
//    against composing it unsigned, medians over the same messages.
// Run: npm run build && node bench/delivery-speed.js [messages]
import nodemailer from "nodemailer";
import { openInstance } from "../dist/services/instance.js";
import { createDelivery } from "../dist/services/index.js";
import { relayFromConfig } from "../dist/services/sending/delivery-runtime.js";
import { composeSigned } from "../dist/providers/smtp/message-signer.js";
import { median, sendingDataDir, sinkEnv, startSink } from "./fixtures/sending.js";

const N = Number(process.argv[2] ?? 500);
const sink = await startSink();
const env = sinkEnv(sink);
const { dataDir } = await sendingDataDir({ contacts: N, env });
const instance = openInstance({ dataDir, env });
const { services } = instance;

// 1. The delivery loop.
const relay = relayFromConfig(services);
const delivery = createDelivery(services, { relay, log: () => {} });
let started = performance.now();
const result = await delivery.runUntilEmpty();
const oursMs = performance.now() - started;
await relay.close();
if (result.sent !== N || sink.total() !== N) throw new Error(`expected ${N} sent, got ${result.sent} (sink ${sink.total()})`);

// The same messages, built once, for the baseline and the signing comparison.
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

// Baselines of 1: a plain nodemailer pool composing and signing, then sending pre-built bytes.
const connections = services.deps.config.smtp.connections;
const poolOf = () => nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections, dkim: { ...dkim, headerFieldNames: "From:To:Subject:Date:Message-ID:List-Unsubscribe:List-Unsubscribe-Post" } });
sink.reset();
let pool = poolOf();
started = performance.now();
await Promise.all(messages.map((m) => pool.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, headers: m.headers, envelope: m.envelope })));
const poolMs = performance.now() - started;
pool.close();
const raws = [];
for (const m of messages) raws.push(await composeSigned({ ...m, date: new Date() }, dkim));
sink.reset();
pool = nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections });
started = performance.now();
await Promise.all(messages.map((m, i) => pool.sendMail({ envelope: m.envelope, raw: raws[i] })));
const rawMs = performance.now() - started;
pool.close();

// 2. Signing cost per message.
const unsigned = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
const signedUs = [];
const plainUs = [];
for (const m of messages) {
  let t = performance.now();
  await composeSigned({ ...m, date: new Date() }, dkim);
  signedUs.push((performance.now() - t) * 1000);
  t = performance.now();
  await unsigned.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, headers: m.headers, envelope: m.envelope });
  plainUs.push((performance.now() - t) * 1000);
}
instance.close();
await sink.close();

const rate = (ms) => (N / (ms / 1000)).toFixed(0);
console.log(`delivery to a local SMTP sink: ${N} messages, DKIM (2048-bit) on, throttles off, ${connections} connections`);
console.log(`  ours (claim, render, sign, send, record): ${rate(oursMs)} msg/s (${(oursMs / 1000).toFixed(2)} s)`);
console.log(`  baseline (a nodemailer pool composing and signing the rendered messages): ${rate(poolMs)} msg/s (${(poolMs / 1000).toFixed(2)} s)`);
console.log(`  ratio ours/baseline: ${(poolMs / oursMs).toFixed(2)}x`);
console.log(`  (the pool sending pre-built signed bytes: ${rate(rawMs)} msg/s)`);
console.log(`composing one message (median of ${N}): signed ${median(signedUs).toFixed(0)} µs, unsigned ${median(plainUs).toFixed(0)} µs`);
console.log(`  DKIM signing costs ${(median(signedUs) - median(plainUs)).toFixed(0)} µs a message; signed/unsigned ${(median(signedUs) / median(plainUs)).toFixed(2)}x`);
