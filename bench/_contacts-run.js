// One measurement of bench/contacts.js against one build (`--dist DIR`, the compiled code
// of this checkout or of the baseline's): imports N contacts through addMany into a new
// data directory, then measures searches and list pages, and prints one JSON line.
//
//   node bench/_contacts-run.js --dist dist --contacts 20000 --queries 100 [--keep DIR] [--reuse DIR]
//
// --keep DIR: write into DIR and leave it there (to upgrade it with another build).
// --reuse DIR: open an existing data directory (made by another build: its migrations run
// and are timed) and measure searches only; it also prints, per query, the total and the
// first page's emails, so two builds' answers can be compared.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dist = resolve(arg("dist") ?? "dist");
const N = Number(arg("contacts") ?? 20_000);
const QUERIES = Number(arg("queries") ?? 100);
const keep = arg("keep");
const reuse = arg("reuse");
const { openInstance } = await import(join(dist, "services/instance.js"));

// Deterministic data: a small PRNG so every run imports and searches the same contacts.
let seed = 0x2f6b1d;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x80000000);
const pick = (list) => list[Math.floor(rand() * list.length)];

const FIRST = "anna,bernd,carla,dora,emil,fritz,greta,hans,ida,jonas,karin,lukas,marie,nils,olga,paul,quirin,rosa,stefan,tina,ursula,viktor,wanda,xaver,yvonne,zoe,luca,mia,noah,lea,elias,sofia,david,laura,simon,nina,tobias,sarah,julian,lena,marco,sandra,peter,andrea,thomas,monika,michael,claudia,daniel,petra".split(",");
const LAST = "muster,meier,mueller,schmid,keller,weber,huber,schneider,frick,beck,wolf,fischer,moser,brunner,baumann,gerber,graf,frei,kaiser,hofmann,vogt,marxer,ospelt,buechel,kind,hasler,wohlwend,negele,matt,risch,oehri,batliner,kieber,sele,walser,wanger,gassner,eberle,beck,lampert".split(",");
const WORDS = "alpen,rhein,vaduz,schaan,zahn,praxis,baeckerei,garage,elektro,sanitaer,holzbau,maler,treuhand,immobilien,physio,coiffeur,optik,apotheke,gartenbau,reinigung,druck,design,consulting,bau,metall,auto,hotel,cafe,bistro,weinbau,schreinerei,dach,fenster,kueche,licht,energie,solar,medien,sport,velo".split(",");
const TLDS = ["li", "ch", "at", "de", "com", "net"];
const FREEMAIL = ["gmail.com", "outlook.com", "gmx.ch", "bluewin.ch", "yahoo.com", "hotmail.com"];
const ROLES = ["info", "kontakt", "office", "hello", "mail", "praxis", "verkauf"];
// Not drawn from the PRNG: a --reuse run (no import) then samples the same queries.
const TAGS = ["lead", "customer", "partner"];

// Local businesses, each with one to a few addresses; people at providers.
const domains = Array.from({ length: Math.max(50, Math.floor(N / 8)) }, (_, i) => `${pick(WORDS)}-${pick(WORDS)}${i % 97}.${pick(TLDS)}`);
function makeEmail(i) {
  const r = rand();
  const first = pick(FIRST);
  const last = pick(LAST);
  if (r < 0.35) return `${pick(ROLES)}@${pick(domains)}`;
  if (r < 0.75) return `${first}.${last}${i % 7 === 0 ? i % 100 : ""}@${pick(domains)}`;
  return `${first}.${last}${Math.floor(rand() * 1000)}@${pick(FREEMAIL)}`;
}
const emails = [];
const seen = new Set();
while (emails.length < N) {
  const e = makeEmail(emails.length);
  if (!seen.has(e)) {
    seen.add(e);
    emails.push(e);
  }
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
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

const dir = reuse ?? keep ?? mkdtempSync(join(tmpdir(), "outreach-bench-contacts-"));
const tOpen = performance.now();
const instance = openInstance({ dataDir: dir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
const openS = (performance.now() - tOpen) / 1000;
const out = { contacts: N };
try {
  const { services } = instance;
  const db = services.deps.db;
  let teamId;
  if (reuse) {
    teamId = db.prepare("SELECT id FROM teams WHERE name = 'Bench'").pluck().get();
    out.openS = openS;
  } else {
    teamId = services.identity.bootstrap({ name: "Bench", email: "bench@example.com", team: "Bench", plan: "self-hosted" }).team.id;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < N; i += 500) {
      const batch = emails.slice(i, i + 500).map((email, j) => ({ email, name: `Contact ${i + j}`, phone: `+423 ${100000 + i + j}`, tags: [TAGS[(i + j) % 3]] }));
      const result = await services.contacts.addMany(teamId, batch);
      if (result.created !== batch.length) throw new Error(`batch at ${i}: ${JSON.stringify(result.results.find((r) => r.status !== "created"))}`);
    }
    out.importPerS = N / ((performance.now() - t0) / 1000);
    // CPU time of this process (main thread and SQLite's work in it): less affected by others' load than wall time.
    const cpu = process.cpuUsage(cpu0);
    out.importPerCpuS = N / ((cpu.user + cpu.system) / 1e6);
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  const pageSize = db.pragma("page_size", { simple: true });
  out.bytesPerContact = (db.pragma("page_count", { simple: true }) * pageSize) / N;
  // Without the free pages (an upgrade leaves the old index's pages free until a VACUUM).
  out.usedBytesPerContact = ((db.pragma("page_count", { simple: true }) - db.pragma("freelist_count", { simple: true })) * pageSize) / N;
  db.exec("ANALYZE");

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
  const longSub = sample(QUERIES, (e) => e.slice(0, Math.min(e.length, 6 + Math.floor(rand() * 6))));
  const exact = sample(QUERIES, (e) => e.toUpperCase());
  const filtered = sample(QUERIES, (e) => substring(e, false));
  const list = (search) => services.contacts.list(teamId, q({ search }));
  list("warm");
  out.search = {
    "list page (limit 20, random page)": measure((page) => services.contacts.list(teamId, q({ page })), pages),
    "search, 3-5 chars anywhere in the email": measure(list, anySub),
    "search, 3-5 chars of the local part": measure(list, localSub),
    "search, 6-11 chars (an email's start)": measure(list, longSub),
    "search, whole email (other case)": measure(list, exact),
    "search, 3-5 chars, tag and status filter": measure((search) => services.contacts.list(teamId, q({ search, tags: ["lead"], status: ["active"] })), filtered),
    "exact lookup by blind index": measure((e) => services.contacts.findByEmail(teamId, e), exact),
  };
  if (reuse || keep) {
    // The answers, to compare builds: totals and first pages' emails of every query.
    out.answers = [...anySub, ...longSub].map((search) => {
      const r = list(search);
      return [search, r.total, r.contacts.map((c) => c.email)];
    });
  }
} finally {
  instance.close();
  if (!keep && !reuse) rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
