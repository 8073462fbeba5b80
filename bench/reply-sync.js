// Reply detection against a real IMAP server (a private Dovecot on 127.0.0.1, as in the tests).
// 1. Sync throughput: a mailbox of N messages (default 10,000: 1% replies in the thread, 1%
//    replies without threading headers that match by sender and subject, the rest unrelated
//    mail from unknown senders) matched against N sent executions. The product's first sync
//    (`outreach replies sync`'s code: header fields in UID ranges, classification, matching,
//    bodies of the replies, one transaction per range) against a bare imapflow fetch of the
//    same header fields of the same messages in the same run: messages/s, ratio, peak RSS
//    growth (sampled every 20 ms).
// 2. Reply-to-stop latency: `serve`'s watcher running; a reply APPENDed; the time until the
//    contact's next step is `skipped`, p50/p95 over SAMPLES replies, with IDLE and with a
//    server that offers no IDLE (polling every POLL seconds).
// The mailbox is filled as real mail arrives in a Dovecot mailbox, through Dovecot itself
// (IMAP MULTIAPPEND, as an LDA/LMTP delivery or a client's upload), so its files, uidlist and
// index are Dovecot's own. BENCH_FILL=maildir writes the files straight into new/ instead (as
// Postfix's own maildir delivery does, behind Dovecot's back): Dovecot then cannot find a
// message file by its uidlist name in a later session and rescans the whole maildir on the
// first body read of each session (bench/README.md, "reply-sync.js").
// Run: npm run build && node bench/reply-sync.js [messages] [samples] [pollSeconds]
// BENCH_THROUGHPUT_ONLY=1: part 1 only; BENCH_CPU_PROF=path: a CPU profile of each sync run.
import { chownSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ImapFlow } from "imapflow";
import { systemClock } from "../dist/core/clock.js";
import { newId } from "../dist/core/ids.js";
import { HEADER_FIELDS, MailboxReader } from "../dist/providers/imap/mailbox-reader.js";
import { openInstance } from "../dist/services/instance.js";
import { createReplySync, startMailboxWatcher } from "../dist/services/replies/reply-runtime.js";
import { multiAppend, startDovecot } from "../test/helpers/dovecot.js";
import { sendingDataDir } from "./fixtures/sending.js";

const N = Number(process.argv[2] ?? 10_000);
const SAMPLES = Number(process.argv[3] ?? 20);
const POLL = Number(process.argv[4] ?? 2);
const OUR = "Acme Dental <hello@acme-dental.test>";
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

// A data directory with N contacts and N sent executions (the delivery itself is benched in delivery-speed.js).
const { dataDir, campaignId } = await sendingDataDir({ contacts: N, env: {} });
const instance = openInstance({ dataDir, env: {}, config: { rateLimitPerMinute: 0, enrich: false, imapPollSeconds: POLL } });
const { services } = instance;
const { db } = services.deps;
const sentAt = new Date(Date.now() - 86_400_000).toISOString();
db.prepare("UPDATE campaign_executions SET status = 'sent', message_id = '<' || id || '@acme-dental.test>', sent_at = ? WHERE campaign_id = ?").run(sentAt, campaignId);
const rows = db
  .prepare("SELECT e.id, e.contact_id, e.team_id, e.message_id FROM campaign_executions e WHERE campaign_id = ? ORDER BY e.id")
  .all(campaignId);
const emailOf = (contactId) => services.contacts.emailOf(db.prepare("SELECT * FROM contacts WHERE id = ?").get(contactId));

function mailText(headers, body) {
  return [...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "", body, ""].join("\r\n");
}

async function mailboxWith(options) {
  const dovecot = await startDovecot(options);
  let threaded = 0;
  let bySubject = 0;
  const texts = [];
  for (let i = 0; i < N; i++) {
    const row = rows[i % rows.length];
    if (i % 100 === 0) {
      threaded++;
      texts.push(mailText({ From: emailOf(row.contact_id), To: OUR, Subject: `Re: Hello Owner ${i}`, "Message-ID": `<r${i}@bench.test>`, "In-Reply-To": row.message_id, References: row.message_id }, "Yes please.\r\n\r\n> Dear"));
    } else if (i % 100 === 50) {
      bySubject++;
      const name = services.contacts.get(row.team_id, row.contact_id).name;
      texts.push(mailText({ From: emailOf(row.contact_id), To: OUR, Subject: `AW: Hello ${name}`, "Message-ID": `<s${i}@bench.test>` }, "Danke.\r\n\r\nAm Montag schrieb Acme:\r\n> Dear"));
    } else {
      texts.push(mailText({ From: `sender${i}@elsewhere${i % 50}.test`, To: OUR, Subject: `Offer number ${i}`, "Message-ID": `<m${i}@elsewhere.test>`, Date: new Date().toUTCString() }, `Unrelated mail ${i}`));
    }
  }
  if (process.env.BENCH_FILL === "maildir") writeIntoMaildir(dovecot, texts);
  else await multiAppend(dovecot, texts);
  return { dovecot, threaded, bySubject };
}

/** BENCH_FILL=maildir: files dropped into new/ behind Dovecot's back, named as Postfix's maildir delivery names them. */
function writeIntoMaildir(dovecot, texts) {
  const dir = join(dovecot.dir, "mail", "new");
  mkdirSync(dir, { recursive: true });
  const owner = statSync(join(dovecot.dir, "mail"));
  texts.forEach((text, i) => {
    const file = join(dir, `${1_700_000_000 + i}.M${i}P1.bench`);
    writeFileSync(file, text);
    chownSync(file, owner.uid, owner.gid);
  });
}

function rssSampler() {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return { stop: () => (clearInterval(timer), { base, peak }) };
}

// 1. Throughput.
const { dovecot, threaded, bySubject } = await mailboxWith({});
const settings = { host: "127.0.0.1", port: dovecot.port, secure: false, user: dovecot.user, pass: dovecot.pass, mailbox: "INBOX" };
// Dovecot indexes a maildir it has not seen on first open, and puts header fields into its
// cache the first time a client asks for them: both outside both timings (a mailbox a mail
// client reads has them cached; on the first bare fetch they cost seconds).
{
  const c = new ImapFlow({ host: "127.0.0.1", port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.pass }, logger: false, disableAutoIdle: true });
  await c.connect();
  const box = await c.mailboxOpen("INBOX", { readOnly: true });
  if (box.exists !== N) throw new Error(`the mailbox has ${box.exists} messages, expected ${N}`);
  // Not for BENCH_FILL=maildir, which stays the bench as it was: after a session that read
  // every file in new/, Dovecot rescans on each range's body read (a sync took 4.7-6.3 s).
  if (process.env.BENCH_FILL !== "maildir") for await (const m of c.fetch("1:*", { uid: true, headers: [...HEADER_FIELDS], internalDate: true, size: true }, { uid: true })) void m;
  await c.logout();
}

async function bareFetch() {
  // Connect, login and EXAMINE are inside the timing, as they are in the sync's.
  const started = performance.now();
  const c = new ImapFlow({ host: "127.0.0.1", port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.pass }, logger: false, disableAutoIdle: true });
  await c.connect();
  await c.mailboxOpen("INBOX", { readOnly: true });
  let n = 0;
  for await (const m of c.fetch("1:*", { uid: true, headers: [...HEADER_FIELDS], internalDate: true, size: true }, { uid: true })) if (m.headers) n++;
  const ms = performance.now() - started;
  await c.logout();
  if (n !== N) throw new Error(`bare fetch read ${n}`);
  return ms;
}

const phases = { headers: 0, sources: 0, status: 0 };
const timed = (reader, name, phase) => {
  const original = reader[name].bind(reader);
  reader[name] = async (...args) => {
    const t = performance.now();
    try {
      return await original(...args);
    } finally {
      phases[phase] += performance.now() - t;
    }
  };
};
const sync = createReplySync(services, {
  log: () => {},
  // BENCH_BATCH=n: UIDs per header FETCH (the product's default otherwise).
  ...(process.env.BENCH_BATCH ? { batchSize: Number(process.env.BENCH_BATCH) } : {}),
  settings,
  reader: (s) => {
    const reader = new MailboxReader(s);
    timed(reader, "headers", "headers");
    timed(reader, "sources", "sources");
    timed(reader, "uidNext", "status");
    return reader;
  },
});

// The machine is shared: three runs of each, interleaved, the best of each compared.
function resetReplies() {
  db.exec("DELETE FROM campaign_replies; DELETE FROM mailbox_cursors; DELETE FROM sequence_stops; UPDATE contacts SET status = 'active' WHERE status = 'replied'; UPDATE campaign_executions SET replied_at = NULL;");
  // The set-up's and this reset's writes out of the WAL, as a data directory is at rest (the
  // last connection's close checkpoints it): else a sync's first commit pays their checkpoint.
  db.pragma("wal_checkpoint(TRUNCATE)");
}
const bareMs = [];
const oursMs = [];
// This process's CPU time (user + system) per run: on a loaded machine the wall times swing
// with the others' work, what each side costs in CPU much less.
const bareCpu = [];
const oursCpu = [];
const cpuMs = (since) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
let rss;
let summary;
// BENCH_CPU_PROF=file.cpuprofile: a CPU profile of the product's syncs alone (not the setup, not the bare fetches).
const profiler = process.env.BENCH_CPU_PROF ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post("Profiler.enable");
}
// Both sides warm, alike: the bare side's code (imapflow's fetch) ran in the warm-up above, so
// the product's sync runs once here too (JIT, first-use statements), then its records are
// reset. Without it run 0 of ours was 1.3-1.8x its later runs; with it, 1.15x in a quiet run
// (0.55, 0.48, 0.48 s): the rest of run 0's extra is not warm-up of our code.
await sync.syncOnce();
resetReplies();
for (let run = 0; run < 3; run++) {
  const bareCpuStart = process.cpuUsage();
  bareMs.push(await bareFetch());
  bareCpu.push(cpuMs(bareCpuStart));
  resetReplies();
  const sampler = rssSampler();
  if (profiler) await profiler.post("Profiler.start");
  const oursCpuStart = process.cpuUsage();
  const started = performance.now();
  summary = await sync.syncOnce();
  oursMs.push(performance.now() - started);
  oursCpu.push(cpuMs(oursCpuStart));
  if (profiler) {
    const { profile } = await profiler.post("Profiler.stop");
    writeFileSync(process.env.BENCH_CPU_PROF.replace(/(\.cpuprofile)?$/, `.${run}.cpuprofile`), JSON.stringify(profile));
  }
  const r = sampler.stop();
  if (!rss || r.peak - r.base > rss.peak - rss.base) rss = r;
}
// Medians (the machine is shared); the ratio is also taken per interleaved pair, whose two
// runs saw about the same load.
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bare = median(bareMs);
const ours = median(oursMs);
const pairRatio = median(bareMs.map((b, i) => b / oursMs[i]));
if (summary.messages !== N || summary.replies !== threaded + bySubject) throw new Error(`unexpected summary ${JSON.stringify(summary)} (expected ${threaded} + ${bySubject} replies)`);
await dovecot.stop();

if (process.env.BENCH_THROUGHPUT_ONLY) {
  console.log(`fill ${process.env.BENCH_FILL === "maildir" ? "maildir" : "append"}: ours ${oursMs.map((x) => x.toFixed(0)).join(", ")} ms, bare ${bareMs.map((x) => x.toFixed(0)).join(", ")} ms; CPU of this process: ours ${oursCpu.map((x) => x.toFixed(0)).join(", ")} ms, bare ${bareCpu.map((x) => x.toFixed(0)).join(", ")} ms; phases ${JSON.stringify(phases)}; load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  process.exit(0);
}

// 2. Latency: each sample is a contact with a pending next step; a reply is APPENDed while the watcher runs.
async function latency(noIdle) {
  const server = await startDovecot({ noIdle });
  const s = { ...settings, port: server.port, user: server.user, pass: server.pass };
  let passes = 0;
  const watcher = startMailboxWatcher(services, { log: (l) => process.env.BENCH_DEBUG && console.error(l), clock: systemClock, settings: s, onPass: () => passes++ });
  while (passes === 0) await new Promise((r) => setTimeout(r, 10));
  const client = new ImapFlow({ host: "127.0.0.1", port: server.port, secure: false, auth: { user: server.user, pass: server.pass }, logger: false, disableAutoIdle: true });
  await client.connect();
  const times = [];
  const offset = noIdle ? 2 * SAMPLES : SAMPLES;
  for (let k = 0; k < SAMPLES; k++) {
    const row = rows[rows.length - 1 - offset - k];
    const next = newId("exe");
    db.prepare("INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, not_before, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 'pending', ?, ?, ?)").run(
      next, campaignId, row.team_id, row.contact_id, new Date(Date.now() + 86_400_000).toISOString(), sentAt, sentAt,
    );
    const status = db.prepare("SELECT status FROM campaign_executions WHERE id = ?").pluck();
    const t0 = performance.now();
    await client.append("INBOX", mailText({ From: emailOf(row.contact_id), To: OUR, Subject: "Re: Hello", "Message-ID": `<lat${k}${noIdle}@bench.test>`, "In-Reply-To": row.message_id }, "Yes."));
    while (status.get(next) !== "skipped") {
      if (performance.now() - t0 > 30_000) throw new Error("a reply was not seen within 30 s");
      await new Promise((r) => setTimeout(r, 2));
    }
    times.push(performance.now() - t0);
    // Spread the appends over the poll cycle, as real replies arrive.
    if (noIdle) await new Promise((r) => setTimeout(r, Math.random() * POLL * 1000));
  }
  await client.logout();
  await watcher.stop();
  await server.stop();
  return times;
}
const idle = await latency(false);
const polled = await latency(true);
instance.close();

const oursRate = (N / ours) * 1000;
const base = (N / bare) * 1000;
console.log(`reply sync of ${N} messages (filled by ${process.env.BENCH_FILL === "maildir" ? "files written into new/" : "IMAP MULTIAPPEND"}, ${threaded} threaded replies, ${bySubject} matched by sender and subject, the rest unmatched) against ${rows.length} sent executions`);
const secs = (xs) => xs.map((x) => (x / 1000).toFixed(2)).join(", ");
console.log(`  load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`  ours (connect, headers, matching, reply bodies, records): ${oursRate.toFixed(0)} messages/s (median of ${secs(oursMs)} s)`);
console.log(`  bare imapflow fetch of the same header fields (connect included): ${base.toFixed(0)} messages/s (median of ${secs(bareMs)} s)`);
console.log(`  CPU time of this process: ours ${median(oursCpu).toFixed(0)} ms, bare ${median(bareCpu).toFixed(0)} ms (medians; Dovecot's CPU not counted)`);
console.log(`  ratio: ${(oursRate / base).toFixed(2)}x the bare fetch of the medians, ${pairRatio.toFixed(2)}x the median of the interleaved pairs (target >= 0.8)`);
// The phases overlap (commands are queued behind each other): a body fetch's time includes the header range queued before it.
console.log(`  of the 3 runs together, from asking to answer: header fetches ${(phases.headers / 1000).toFixed(2)} s, reply bodies ${(phases.sources / 1000).toFixed(2)} s, NOOP+STATUS ${(phases.status / 1000).toFixed(2)} s (overlapping)`);
console.log(`  RSS: ${mb(rss.base)} MB before, peak ${mb(rss.peak)} MB, growth ${mb(rss.peak - rss.base)} MB (target < 100)`);
console.log(`reply-to-stop latency, ${SAMPLES} replies each:`);
console.log(`  IDLE:            p50 ${pct(idle, 50).toFixed(0)} ms, p95 ${pct(idle, 95).toFixed(0)} ms (target < 2000)`);
console.log(`  polling (${POLL} s):   p50 ${pct(polled, 50).toFixed(0)} ms, p95 ${pct(polled, 95).toFixed(0)} ms (target <= ${POLL * 1000 + 1000})`);
