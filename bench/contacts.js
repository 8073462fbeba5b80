// Contacts at scale: list pages, substring search through the blind 3/4/5-gram index, exact
// email search, each against a decrypt-everything scan measured in the same run.
//
//   npm run build && node bench/contacts.js                   (100,000 contacts)
//   node bench/contacts.js --contacts 20000 --queries 100     (smaller, faster; or CONTACTS=, QUERIES=)
//   KEEP_DIR=/tmp/x node bench/contacts.js                    (keep the data dir; a later run reuses it,
//                                                              and reports the startup's migration/backfill)
//
// Services are called directly (no HTTP). Figures depend on the machine and its load:
// compare the indexed and baseline columns of one run, not runs with each other.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openInstance } from "../dist/services/instance.js";
import { ContactSearch } from "../dist/services/contact-search.js";
import { ContactCipher } from "../dist/services/contacts-encryption.js";
import { ContactsRepo } from "../dist/store/contacts.js";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const N = Number(arg("contacts") ?? process.env.CONTACTS ?? 100_000);
const QUERIES = Number(arg("queries") ?? process.env.QUERIES ?? 200);
if (!(N >= 50) || !(QUERIES >= 1)) throw new Error("--contacts must be at least 50 and --queries at least 1");
const BASELINE_QUERIES = Number(process.env.BASELINE_QUERIES ?? 15);

// Deterministic data: a small PRNG so every run searches the same contacts.
let seed = 0x2f6b1d;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x80000000);
const pick = (list) => list[Math.floor(rand() * list.length)];

const FIRST = "anna,bernd,carla,dora,emil,fritz,greta,hans,ida,jonas,karin,lukas,marie,nils,olga,paul,quirin,rosa,stefan,tina,ursula,viktor,wanda,xaver,yvonne,zoe,luca,mia,noah,lea,elias,sofia,david,laura,simon,nina,tobias,sarah,julian,lena,marco,sandra,peter,andrea,thomas,monika,michael,claudia,daniel,petra".split(",");
const LAST = "muster,meier,mueller,schmid,keller,weber,huber,schneider,frick,beck,wolf,fischer,moser,brunner,baumann,gerber,graf,frei,kaiser,hofmann,vogt,marxer,ospelt,buechel,kind,hasler,wohlwend,negele,matt,risch,oehri,batliner,kieber,sele,walser,wanger,gassner,eberle,beck,lampert".split(",");
const WORDS = "alpen,rhein,vaduz,schaan,zahn,praxis,baeckerei,garage,elektro,sanitaer,holzbau,maler,treuhand,immobilien,physio,coiffeur,optik,apotheke,gartenbau,reinigung,druck,design,consulting,bau,metall,auto,hotel,cafe,bistro,weinbau,schreinerei,dach,fenster,kueche,licht,energie,solar,medien,sport,velo".split(",");
const TLDS = ["li", "ch", "at", "de", "com", "net"];
const FREEMAIL = ["gmail.com", "outlook.com", "gmx.ch", "bluewin.ch", "yahoo.com", "hotmail.com"];
const ROLES = ["info", "kontakt", "office", "hello", "mail", "praxis", "verkauf"];

// About 12,000 business domains: local businesses, each with one to a few addresses.
const domains = Array.from({ length: Math.max(50, Math.floor(N / 8)) }, (_, i) => `${pick(WORDS)}-${pick(WORDS)}${i % 97}.${pick(TLDS)}`);

function makeEmail(i) {
  const r = rand();
  const first = pick(FIRST);
  const last = pick(LAST);
  if (r < 0.35) return `${pick(ROLES)}@${pick(domains)}`;
  if (r < 0.75) return `${first}.${last}${i % 7 === 0 ? i % 100 : ""}@${pick(domains)}`;
  return `${first}.${last}${Math.floor(rand() * 1000)}@${pick(FREEMAIL)}`;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function measure(fn, inputs) {
  const times = [];
  for (const input of inputs) {
    const t0 = performance.now();
    fn(input);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { n: times.length, p50: percentile(times, 50), p95: percentile(times, 95) };
}

// KEEP_DIR=/tmp/x keeps the data directory and reuses it on the next run (skips the insert).
const keepDir = process.env.KEEP_DIR;
const dir = keepDir ?? mkdtempSync(join(tmpdir(), "outreach-bench-contacts-"));
const tOpen = performance.now();
const instance = openInstance({ dataDir: dir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
const openS = (performance.now() - tOpen) / 1000;
try {
  const { services } = instance;
  const reuse = services.identity.users.count() > 0;
  const boot = reuse
    ? (() => {
        const user = services.identity.users.byEmail("bench@example.com");
        const team = services.deps.db.prepare("SELECT * FROM teams WHERE name = 'Bench'").get();
        return { user, team };
      })()
    : services.identity.bootstrap({ name: "Bench", email: "bench@example.com", team: "Bench", plan: "self-hosted" });
  const teamId = boot.team.id;
  const emails = [];
  const seen = new Set();
  while (emails.length < N) {
    const e = makeEmail(emails.length);
    if (!seen.has(e)) {
      seen.add(e);
      emails.push(e);
    }
  }

  const t0 = performance.now();
  for (let i = reuse ? N : 0; i < N; i += 500) {
    const batch = emails.slice(i, i + 500).map((email, j) => ({ email, name: `Contact ${i + j}`, phone: `+423 ${100000 + i + j}`, tags: [pick(["lead", "customer", "partner"])] }));
    const result = await services.contacts.addMany(teamId, batch);
    if (result.created !== batch.length) throw new Error(`batch at ${i}: ${JSON.stringify(result.results.find((r) => r.status !== "created"))}`);
  }
  const insertS = (performance.now() - t0) / 1000;
  if (reuse) console.log("(reusing the contacts of KEEP_DIR: the insert figure below is not a measurement)");
  if (reuse) console.log(`(reused data dir opened in ${openS.toFixed(1)} s, migrations and gram backfill included)`);
  const gramTable = services.deps.db.prepare("SELECT name FROM sqlite_schema WHERE name IN ('contact_email_ngrams', 'contact_email_grams')").pluck().get();
  const grams = services.deps.db.prepare(`SELECT COUNT(*) AS n FROM ${gramTable}`).get().n;
  services.deps.db.pragma("wal_checkpoint(TRUNCATE)");
  services.deps.db.exec("ANALYZE");
  const pageSize = services.deps.db.pragma("page_size", { simple: true });
  const dbMb = (services.deps.db.pragma("page_count", { simple: true }) * pageSize) / 1e6;

  const q = (extra) => ({ page: 1, limit: 20, ...extra });
  const substring = (email, local) => {
    const text = local ? email.split("@")[0] : email;
    const len = 3 + Math.floor(rand() * 3);
    if (text.length <= len) return text;
    const start = Math.floor(rand() * (text.length - len + 1));
    return text.slice(start, start + len);
  };
  const sample = (count, f) => Array.from({ length: count }, () => f(emails[Math.floor(rand() * N)]));

  const pages = Array.from({ length: QUERIES }, () => 1 + Math.floor(rand() * Math.ceil(N / 20)));
  const anySub = sample(QUERIES, (e) => substring(e, false));
  const localSub = sample(QUERIES, (e) => substring(e, true));
  const exact = sample(QUERIES, (e) => e.toUpperCase());
  const list = (search) => services.contacts.list(teamId, q({ search }));
  // Baseline: the same page answered by decrypting every email of the workspace (the scan
  // that searches shorter than a gram use), then reading the page's contacts.
  const scanner = new ContactSearch({ repo: new ContactsRepo(services.deps.db), cipher: new ContactCipher(services.keys), keys: services.keys });
  const scan = (search) => {
    const ids = scanner.scanMatchingIds({ teamId }, search);
    return { total: ids.length, contacts: ids.slice(0, 20).map((id) => services.contacts.get(teamId, id)) };
  };

  // Warm the page cache once, as a running server would be.
  list("warm");
  const rows = [
    ["list page (limit 20, random page)", measure((page) => services.contacts.list(teamId, q({ page })), pages), null],
    ["search, 3-5 chars anywhere in the email", measure(list, anySub), measure(scan, anySub.slice(0, BASELINE_QUERIES))],
    ["search, 3-5 chars of the local part", measure(list, localSub), measure(scan, localSub.slice(0, BASELINE_QUERIES))],
    ["search, whole email (other case)", measure(list, exact), measure(scan, exact.slice(0, BASELINE_QUERIES))],
    ["exact lookup by blind index", measure((e) => services.contacts.findByEmail(teamId, e), exact), null],
  ];

  const fmt = (v) => (v === undefined ? "" : v.toFixed(2));
  console.log(`contacts: ${N.toLocaleString("en")} in one workspace; ${grams.toLocaleString("en")} gram postings (${gramTable}); database ${dbMb.toFixed(0)} MB; inserted in ${insertS.toFixed(1)} s (${((insertS * 1e6) / N).toFixed(0)} µs/contact) through addMany batches of 500`);
  console.log(`queries: ${QUERIES} per indexed row, ${BASELINE_QUERIES} per baseline (decrypt-everything scan) row; times in ms\n`);
  const header = ["operation", "n", "p50", "p95", "baseline n", "baseline p50", "baseline p95", "p95 speed-up"];
  const table = rows.map(([name, m, b]) => [name, String(m.n), fmt(m.p50), fmt(m.p95), b ? String(b.n) : "", b ? fmt(b.p50) : "", b ? fmt(b.p95) : "", b ? `${(b.p95 / m.p95).toFixed(0)}x` : ""]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(line(header));
  for (const r of table) console.log(line(r));
  // The import's choice: one add (one transaction) per row against the batch path.
  const M = Math.min(2000, N);
  const perRowTeam = services.identity.createTeam({ name: "Per row", ownerId: boot.user.id, plan: "self-hosted" }).id;
  const batchTeam = services.identity.createTeam({ name: "Batch", ownerId: boot.user.id, plan: "self-hosted" }).id;
  const importRows = emails.slice(0, M).map((email, i) => ({ email, name: `Contact ${i}` }));
  let t1 = performance.now();
  for (const row of importRows) services.contacts.add(perRowTeam, row);
  const perRowMs = performance.now() - t1;
  t1 = performance.now();
  for (let i = 0; i < M; i += 500) await services.contacts.addMany(batchTeam, importRows.slice(i, i + 500));
  const batchMs = performance.now() - t1;
  console.log(`\nimport of ${M} rows: add() per row ${(perRowMs / 1000).toFixed(2)} s, addMany batches of 500 ${(batchMs / 1000).toFixed(2)} s (${(perRowMs / batchMs).toFixed(1)}x)`);

  const target = rows[1][1].p95 < 50 && rows[2][1].p95 < 50;
  console.log(`\nTarget (substring search p95 < 50 ms): ${target ? "met" : "NOT met"}`);
} finally {
  instance.close();
  if (!keepDir) rmSync(dir, { recursive: true, force: true });
}
