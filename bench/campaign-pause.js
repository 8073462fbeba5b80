// Pausing a lifetime campaign with many queued executions, among other campaigns' rows.
// Ours: the lifecycle transaction (guarded status UPDATE + one set-based UPDATE cancelling the
// campaign's pending/queued executions). Baseline, measured in the same run on the same data:
// the row-at-a-time pattern (read the open executions, then update each by id) in one
// transaction, as a read-then-write implementation does.
// Run: npm run build && node bench/campaign-pause.js [executions] [runs]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openInstance } from "../dist/services/instance.js";

const N = Number(process.argv[2] ?? 10000);
const RUNS = Number(process.argv[3] ?? 7);
const CAMPAIGNS = 10; // ours plus nine others, as in a real workspace
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), "outreach-bench-"));
const instance = openInstance({ dataDir: dir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
try {
  const { services } = instance;
  const db = services.deps.db;
  const boot = services.identity.bootstrap({ name: "Ada", email: "ada@example.com", team: "Acme", plan: "self-hosted" });
  const owner = services.auth.authenticate(`Bearer ${boot.token}`);
  const campaigns = [];
  for (let c = 0; c < CAMPAIGNS; c++) {
    const campaign = await services.campaigns.create(owner, { name: `c${c}`, type: "lifetime", subject: "s" });
    services.campaigns.changeLifecycle(owner, campaign.id, { status: "active" });
    campaigns.push(campaign.id);
  }
  const target = campaigns[0];
  const now = "2026-11-22T10:00:00.000Z";
  const insertContact = db.prepare(
    `INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, key_id, created_at, updated_at) VALUES (?, ?, 'x', ?, 'x', 'k', ?, ?)`,
  );
  const insertExecution = db.prepare(
    `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 'queued', ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      insertContact.run(`ct_${i}`, boot.team.id, `b${i}`, now, now);
      for (const campaign of campaigns) insertExecution.run(`exe_${campaign}_${i}`, campaign, boot.team.id, `ct_${i}`, now, now);
    }
  }).immediate();

  const reset = () => {
    db.prepare("UPDATE campaign_executions SET status = 'queued' WHERE campaign_id = ?").run(target);
    db.prepare("UPDATE campaigns SET status = 'active' WHERE id = ?").run(target);
  };
  const check = () => {
    const left = db.prepare("SELECT count(*) AS n FROM campaign_executions WHERE campaign_id = ? AND status IN ('pending', 'queued')").get(target).n;
    const status = db.prepare("SELECT status FROM campaigns WHERE id = ?").get(target).status;
    if (left !== 0 || status !== "paused") throw new Error("the pause did not cancel every open execution");
  };
  const selectOpen = db.prepare("SELECT id FROM campaign_executions WHERE campaign_id = ? AND status IN ('pending', 'queued')");
  const cancelOne = db.prepare("UPDATE campaign_executions SET status = 'cancelled', updated_at = ? WHERE id = ?");
  const setStatus = db.prepare("UPDATE campaigns SET status = 'paused', updated_at = ? WHERE id = ?");
  const rowAtATime = () =>
    db.transaction(() => {
      setStatus.run(now, target);
      for (const { id } of selectOpen.all(target)) cancelOne.run(now, id);
    }).immediate();

  const ours = [];
  const baseline = [];
  for (let r = 0; r < RUNS; r++) {
    reset();
    let start = performance.now();
    services.campaigns.changeLifecycle(owner, target, { status: "paused" });
    ours.push(performance.now() - start);
    check();
    reset();
    start = performance.now();
    rowAtATime();
    baseline.push(performance.now() - start);
    check();
  }
  const a = median(ours);
  const b = median(baseline);
  console.log(`pause a lifetime campaign: ${N} queued executions among ${N * CAMPAIGNS} (median of ${RUNS} runs, ms)`);
  console.log(`  baseline (read open executions, update each by id): ${b.toFixed(1)}`);
  console.log(`  ours (guarded UPDATE + one set-based cancel):       ${a.toFixed(1)}`);
  console.log(`  ratio baseline/ours: ${(b / a).toFixed(2)}x`);
} finally {
  instance.close();
  rmSync(dir, { recursive: true, force: true });
}
