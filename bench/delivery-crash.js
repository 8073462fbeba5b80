// The crash tally of delivery (issue "never twice"): `outreach deliver --until-empty` (the
// built binary) delivers a launched campaign to a real SMTP server on 127.0.0.1 and is
// killed with SIGKILL at random moments mid-delivery, again and again, each next run
// recovering the last one's claims; then one run finishes. Tally: kills, messages the
// relay accepted, duplicates (a Message-ID accepted twice: must be 0), lost (an execution
// neither accepted by the relay nor visibly left for review: must be 0), and the
// executions recorded `unconfirmed` (killed between handing over the final dot and
// recording the answer; never resent, flagged for the operator) split by whether the relay
// had them. Baseline, same run: the same campaign delivered without kills (time, msg/s).
// Run: npm run build && node bench/delivery-crash.js [contacts] [kills]
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { sendingDataDir, startSink } from "./fixtures/sending.js";

const CONTACTS = Number(process.argv[2] ?? 300);
const KILLS = Number(process.argv[3] ?? 30);
const BIN = fileURLToPath(new URL("../bin/outreach.js", import.meta.url));

// 0–20 ms to answer the final dot: some kills land while the relay holds the message.
const sink = await startSink({ answerDelayMs: () => Math.floor(Math.random() * 20) });
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  OUTREACH_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
  OUTREACH_PUBLIC_URL: "https://outreach.acme-dental.test",
  OUTREACH_SEND_PER_MINUTE: "0",
  OUTREACH_SEND_PER_RECIPIENT_DOMAIN_PER_MINUTE: "0",
  OUTREACH_RATE_LIMIT: "0",
};

/** One `deliver --until-empty`; with `killAfterMs`, SIGKILLed that long after its first delivery. */
function deliver(dataDir, killAfterMs) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, "deliver", "--until-empty", "--data-dir", dataDir], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let armed = false;
    child.stderr.on("data", (d) => {
      stderr += d;
      if (killAfterMs !== undefined && !armed && /delivery exe_/.test(stderr)) {
        armed = true;
        setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      }
    });
    child.on("close", (code, signal) => resolve({ code, signal, stderr, ms: performance.now() - started }));
  });
}

function tally(dataDir, campaignId) {
  const db = new Database(join(dataDir, "outreach.db"), { readonly: true });
  const rows = db.prepare("SELECT id, status, unconfirmed, message_id FROM campaign_executions WHERE campaign_id = ?").all(campaignId);
  db.close();
  const accepted = (row) => (sink.byMessageId.get(row.message_id ?? `<${row.id}@acme-dental.test>`) ?? 0) > 0;
  const duplicates = [...sink.byMessageId.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  const open = rows.filter((r) => ["pending", "queued", "sending"].includes(r.status)).length;
  const confirmedNotAccepted = rows.filter((r) => r.status === "sent" && !r.unconfirmed && !accepted(r)).length;
  const failed = rows.filter((r) => r.status === "failed").length;
  return {
    executions: rows.length,
    accepted: sink.total(),
    distinct: sink.byMessageId.size,
    duplicates,
    // Silently lost: recorded as delivered but the relay never had it, or never finished.
    lost: confirmedNotAccepted + open + failed,
    unconfirmedAccepted: rows.filter((r) => r.unconfirmed && accepted(r)).length,
    unconfirmedNotAccepted: rows.filter((r) => r.unconfirmed && !accepted(r)).length,
  };
}

// Baseline: no kills.
const base = await sendingDataDir({ contacts: CONTACTS, env });
const clean = await deliver(base.dataDir);
if (clean.code !== 0) throw new Error(`baseline run failed: ${clean.stderr}`);
const baseTally = tally(base.dataDir, base.campaignId);
sink.reset();

// Killed again and again.
const crashed = await sendingDataDir({ contacts: CONTACTS, env });
let kills = 0;
let runs = 0;
let crashMs = 0;
while (kills < KILLS) {
  const run = await deliver(crashed.dataDir, Math.floor(Math.random() * 250));
  runs++;
  crashMs += run.ms;
  if (run.signal === "SIGKILL") kills++;
  else if (run.code === 0) break; // finished before the kill came
  else throw new Error(`a delivery run failed: ${run.stderr}`);
}
const last = await deliver(crashed.dataDir);
crashMs += last.ms;
if (last.code !== 0) throw new Error(`the final run failed: ${last.stderr}`);
const t = tally(crashed.dataDir, crashed.campaignId);
await sink.close();

console.log(`delivery crash tally: ${CONTACTS} messages, outreach deliver --until-empty SIGKILLed mid-delivery`);
console.log(`  kills: ${kills} (in ${runs + 1} runs)`);
console.log(`  accepted by the relay: ${t.accepted} (${t.distinct} distinct Message-IDs)`);
console.log(`  duplicates: ${t.duplicates}`);
console.log(`  lost: ${t.lost}`);
console.log(`  unconfirmed (killed between the final dot and recording the answer; not resent, flagged): ${t.unconfirmedAccepted + t.unconfirmedNotAccepted}` +
  ` — ${t.unconfirmedAccepted} the relay had, ${t.unconfirmedNotAccepted} it did not`);
console.log(`baseline, no kills: ${baseTally.accepted} accepted, ${baseTally.duplicates} duplicates, ${baseTally.lost} lost in ${(clean.ms / 1000).toFixed(1)} s`);
console.log(`  time with kills / without: ${(crashMs / clean.ms).toFixed(2)}x (process start-ups and recoveries)`);
if (t.duplicates || t.lost || baseTally.duplicates || baseTally.lost) process.exitCode = 1;
