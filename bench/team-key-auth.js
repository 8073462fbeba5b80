// Team API key authentication: the throttled lastUsedAt write (at most once a minute per key)
// against the baseline that writes lastUsedAt on every request.
// Run: npm run build && node bench/team-key-auth.js [requests-per-run] [runs]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openInstance } from "../dist/services/instance.js";
import { hashToken } from "../dist/core/tokens.js";

const N = Number(process.argv[2] ?? 5000);
const RUNS = Number(process.argv[3] ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), "outreach-bench-"));
const instance = openInstance({ dataDir: dir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
try {
  const { services } = instance;
  const boot = services.identity.bootstrap({ name: "Ada", email: "ada@example.com", team: "Acme", plan: "self-hosted" });
  const owner = services.auth.authenticate(`Bearer ${boot.token}`);
  const { key } = services.teamApiKeys.create(owner, { name: "bench", scopes: ["campaigns:trigger"] });
  const header = `Bearer ${key}`;
  const db = services.deps.db;

  const throttled = (hash, now) => services.teamApiKeys.resolve(hash, now);
  // Baseline: the same prepared lookup, and an UPDATE of last_used_at on every request.
  const lookup = db.prepare("SELECT * FROM team_api_keys WHERE key_hash = ?");
  const touch = db.prepare("UPDATE team_api_keys SET last_used_at = ? WHERE id = ?");
  const everyRequest = (hash, now) => {
    const row = lookup.get(hash);
    if (!row || row.revoked_at) return null;
    touch.run(now.toISOString(), row.id);
    return { kind: "key", tokenId: row.id, userId: null, teamId: row.team_id, role: null, scopes: JSON.parse(row.scopes) };
  };

  const totalChanges = db.prepare("SELECT total_changes() AS n");
  const writes = { baseline: 0, throttled: 0 };
  const measure = (resolver, name) => {
    services.auth.registerResolver("key", resolver);
    const before = totalChanges.get().n;
    const start = performance.now();
    for (let i = 0; i < N; i++) services.auth.authenticate(header);
    const rate = (N / (performance.now() - start)) * 1000;
    if (name) writes[name] += totalChanges.get().n - before;
    return rate;
  };
  const results = { baseline: [], throttled: [] };
  measure(throttled); // warm-up
  measure(everyRequest);
  for (let r = 0; r < RUNS; r++) {
    results.baseline.push(measure(everyRequest, "baseline"));
    results.throttled.push(measure(throttled, "throttled"));
  }
  const base = median(results.baseline);
  const ours = median(results.throttled);
  console.log(`team API key authentication, ${N} requests x ${RUNS} runs (median requests/s)`);
  console.log(`  baseline (write lastUsedAt every request): ${base.toFixed(0)}`);
  console.log(`  throttled (write at most once a minute):   ${ours.toFixed(0)}`);
  console.log(`  ratio throttled/baseline: ${(ours / base).toFixed(2)}x`);
  console.log(`  rows written over all runs: baseline ${writes.baseline}, throttled ${writes.throttled}`);
  if (!lookup.get(hashToken(key))) throw new Error("the key was not found by its hash");
} finally {
  instance.close();
  rmSync(dir, { recursive: true, force: true });
}
