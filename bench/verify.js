// Address verification (issue 24): accuracy and throughput of `POST /api/v1/contacts/verify`'s
// service against real protocol servers on 127.0.0.x (nothing leaves the machine).
// 1. Accuracy: a table of cases built from the contract's rules, each with the status written
//    down before the run (strict server, catch-all, greylisting, tarpit, a server that hangs up
//    after RCPT, STARTTLS with a self-signed certificate, null MX, NXDOMAIN, no records, implicit
//    MX, disposable domain, broken syntax, a DNS server that never answers). Every case must match.
// 2. Throughput: CONTACTS (5,000) contacts over DOMAINS (50) domains of mixed behaviour (strict,
//    catch-all, STARTTLS with a self-signed certificate, greylisting), every
//    SMTP reply delayed by LATENCY_MS (5): contacts/s and connections per domain, against a naive
//    loop in the same run that opens one connection per address (EHLO, MAIL, RCPT address, RCPT
//    random, QUIT) with the same 8-way parallelism the service uses.
// 3. Memory: MEMORY_CONTACTS (50,000) contacts verified in one `all` run with the probe off
//    (syntax + DNS only): peak RSS growth while it pages through them.
// Run: npm run build && node bench/verify.js   (CONTACTS=, DOMAINS=, LATENCY_MS=, MEMORY_CONTACTS= to change)
import dns2 from "dns2";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { createServer } from "node:net";
import { ManualClock, systemClock } from "../dist/core/clock.js";
import { openInstance } from "../dist/services/instance.js";
import { SmtpSession } from "../dist/providers/mailbox-probe/smtp-session.js";
import { randomLocalPart } from "../dist/providers/mailbox-probe/mailbox-probe.js";

const CONTACTS = Number(process.env.CONTACTS ?? 5000);
const DOMAINS = Number(process.env.DOMAINS ?? 50);
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 5);
const MEMORY_CONTACTS = Number(process.env.MEMORY_CONTACTS ?? 50_000);
const { Packet } = dns2;

// ---- fixtures: a DNS server and SMTP servers with behaviours ----------------------------

async function startDns(zone) {
  const state = { zone, silent: new Set() };
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const [q] = request.questions;
      const name = String(q.name).toLowerCase().replace(/\.$/, "");
      if ([...state.silent].some((s) => name === s || name.endsWith(`.${s}`))) return;
      const r = Packet.createResponseFromRequest(request);
      const z = state.zone;
      if (q.type === Packet.TYPE.MX && z.mx[name]) for (const m of z.mx[name]) r.answers.push({ name: q.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 60, exchange: m.exchange === "." ? "" : m.exchange, priority: m.priority });
      else if (q.type === Packet.TYPE.A && z.a[name]) for (const address of z.a[name]) r.answers.push({ name: q.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address });
      else if (!z.mx[name] && !z.a[name] && !z.txt?.[name]) r.header.rcode = Packet.RCODE.NXDOMAIN;
      send(r);
    },
  });
  server.on("requestError", () => {});
  const udp = server.servers.udp;
  await new Promise((resolve) => udp.bind(0, "127.0.0.1", resolve));
  return { address: `127.0.0.1:${udp.address().port}`, state, close: () => udp.close() };
}

/** behaviour: strict | catch-all | greylist | tarpit | drop | strict-starttls. Counts connections. */
function startSmtp(address, port, behaviour, mailboxes) {
  const stats = { connections: 0, open: 0, maxOpen: 0, data: 0 };
  const later = (fn) => (LATENCY_MS ? setTimeout(fn, LATENCY_MS) : fn());
  const listen = (server) =>
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, address, () => resolve());
    });
  if (behaviour === "tarpit") {
    const sockets = new Set();
    const server = createServer((s) => {
      stats.connections++;
      sockets.add(s);
      s.on("error", () => {});
    });
    return listen(server).then(() => ({ stats, close: () => { for (const s of sockets) s.destroy(); server.close(); } }));
  }
  const smtp = new SMTPServer({
    authOptional: true,
    logger: false,
    disabledCommands: behaviour === "strict-starttls" ? ["AUTH"] : ["STARTTLS", "AUTH"],
    onConnect(_s, cb) {
      stats.connections++;
      stats.maxOpen = Math.max(stats.maxOpen, ++stats.open);
      later(() => cb());
    },
    onClose() {
      stats.open--;
    },
    onMailFrom(_a, _s, cb) {
      later(() => cb());
    },
    onRcptTo(to, session, cb) {
      if (behaviour === "drop") {
        for (const c of smtp.connections) if (c.id === session.id) c._socket.destroy();
        return;
      }
      later(() => {
        if (behaviour === "greylist") return cb(Object.assign(new Error("4.7.1 Greylisted"), { responseCode: 451 }));
        if (behaviour === "catch-all" || mailboxes.has(to.address.toLowerCase())) return cb();
        cb(Object.assign(new Error("5.1.1 User unknown"), { responseCode: 550 }));
      });
    },
    onData(stream, _s, cb) {
      stats.data++;
      stream.resume();
      stream.on("end", () => cb());
    },
  });
  smtp.on("error", () => {});
  return listen(smtp.server).then(() => ({ stats, close: () => smtp.close(() => {}) }));
}

async function startServers(specs) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    const started = [];
    try {
      for (const [i, s] of specs.entries()) started.push(await startSmtp(`127.0.0.${2 + i}`, port, s.behaviour, new Set(s.mailboxes ?? [])));
      return { port, servers: started };
    } catch {
      for (const s of started) s.close();
    }
  }
  throw new Error("no shared port free on 127.0.0.x");
}

function instanceWith(dns, port, { smtp = true, clock } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "outreach-bench-verify-"));
  const env = {
    OUTREACH_DNS_SERVERS: dns.address,
    OUTREACH_DNS_TIMEOUT_MS: "300",
    OUTREACH_DNS_TRIES: "1",
    OUTREACH_VERIFY_SMTP: smtp ? "1" : "0",
    OUTREACH_VERIFY_SMTP_PORT: String(port ?? 25),
    OUTREACH_VERIFY_SMTP_ALLOW: "127.0.0.0/8",
    OUTREACH_VERIFY_SMTP_TIMEOUT_MS: "1000",
    OUTREACH_HELO_NAME: "bench.outreach.test",
  };
  const instance = openInstance({ dataDir, env, clock: clock ?? systemClock, config: { rateLimitPerMinute: 0, enrich: false } });
  const boot = instance.services.identity.bootstrap({ name: "Ada", email: "ada@example.com", team: "Acme", plan: "self-hosted" });
  return { instance, teamId: boot.team.id };
}

async function addContacts(services, teamId, emails) {
  const ids = [];
  for (let i = 0; i < emails.length; i += 500) {
    const r = await services.contacts.addMany(teamId, emails.slice(i, i + 500).map((email, k) => ({ email, name: `C ${i + k}` })));
    for (const x of r.results) {
      if (!x.id) throw new Error(`contact ${emails[i + x.index]} not created: ${x.error}`);
      ids[i + x.index] = x.id;
    }
  }
  return ids;
}

// ---- 1. accuracy -------------------------------------------------------------------------

const CASES = [
  // [address, expected status, what it stands for] — written before the run.
  ["anna@strict.bench", "deliverable", "strict server, existing mailbox"],
  ["nobody@strict.bench", "undeliverable", "strict server, 550 5.1.1"],
  ["info@strict.bench", "deliverable", "role address (information only)"],
  ["any@catchall.bench", "risky", "catch-all domain"],
  ["someone@grey.bench", "unknown", "greylisting 451 4.7.1"],
  ["x@tarpit.bench", "unknown", "a server that never greets"],
  ["y@drop.bench", "unknown", "a server that hangs up after RCPT"],
  ["bob@tls.bench", "deliverable", "STARTTLS with a self-signed certificate"],
  ["ghost@tls.bench", "undeliverable", "STARTTLS server, unknown user"],
  ["a@nullmx.bench", "undeliverable", "null MX (RFC 7505)"],
  ["a@nxdomain.bench", "undeliverable", "NXDOMAIN"],
  ["a@norecords.bench", "undeliverable", "no MX, A or AAAA"],
  ["carla@aonly.bench", "deliverable", "implicit MX (A record only)"],
  ["temp@mailinator.com", "risky", "disposable domain"],
  ["a@slowdns.bench", "unknown", "DNS server never answers"],
];

const acc = await startServers([
  { behaviour: "strict", mailboxes: ["anna@strict.bench", "info@strict.bench", "carla@aonly.bench"] },
  { behaviour: "catch-all" },
  { behaviour: "greylist" },
  { behaviour: "tarpit" },
  { behaviour: "drop" },
  { behaviour: "strict-starttls", mailboxes: ["bob@tls.bench"] },
]);
const accDns = await startDns({
  mx: {
    "strict.bench": [{ exchange: "mx.strict.bench", priority: 10 }],
    "catchall.bench": [{ exchange: "mx.catchall.bench", priority: 10 }],
    "grey.bench": [{ exchange: "mx.grey.bench", priority: 10 }],
    "tarpit.bench": [{ exchange: "mx.tarpit.bench", priority: 10 }],
    "drop.bench": [{ exchange: "mx.drop.bench", priority: 10 }],
    "tls.bench": [{ exchange: "mx.tls.bench", priority: 10 }],
    "nullmx.bench": [{ exchange: ".", priority: 0 }],
    "mailinator.com": [{ exchange: "mx.catchall.bench", priority: 10 }],
    "slowdns.bench": [{ exchange: "mx.strict.bench", priority: 10 }],
  },
  a: {
    "mx.strict.bench": ["127.0.0.2"],
    "mx.catchall.bench": ["127.0.0.3"],
    "mx.grey.bench": ["127.0.0.4"],
    "mx.tarpit.bench": ["127.0.0.5"],
    "mx.drop.bench": ["127.0.0.6"],
    "mx.tls.bench": ["127.0.0.7"],
    "aonly.bench": ["127.0.0.2"],
  },
  txt: { "norecords.bench": ["v=spf1 -all"] },
});
accDns.state.silent.add("slowdns.bench");
{
  const { instance, teamId } = instanceWith(accDns, acc.port);
  const { services } = instance;
  const ids = await addContacts(services, teamId, CASES.map((c) => c[0]));
  await services.verification.verify(teamId, { all: true });
  let right = 0;
  for (const [i, [email, expected, what]] of CASES.entries()) {
    const v = services.contacts.get(teamId, ids[i]).verification;
    const ok = v?.status === expected;
    right += ok ? 1 : 0;
    console.log(`${ok ? "ok  " : "MISS"} ${email.padEnd(24)} ${expected.padEnd(13)} got ${String(v?.status).padEnd(13)} ${what}: ${v?.reason}`);
  }
  // Broken addresses never pass the API's own input check, so they meet the syntax rule directly.
  const { checkEmailSyntax } = await import("../dist/core/email-syntax.js");
  const broken = ["no-at.bench", "a..b@strict.bench", "a b@strict.bench", "@strict.bench", "a@localhost", `${"x".repeat(65)}@strict.bench`, "a@[10.0.0.1]"];
  const brokenRight = broken.filter((b) => !checkEmailSyntax(b).ok).length;
  console.log(`broken addresses refused by the syntax rule (undeliverable): ${brokenRight}/${broken.length}`);
  console.log(`accuracy: ${right + brokenRight}/${CASES.length + broken.length} cases right; DATA commands seen: ${acc.servers.reduce((n, s) => n + s.stats.data, 0)}`);
  instance.close();
  for (const s of acc.servers) s.close();
}

// ---- 2. throughput -------------------------------------------------------------------------

const kinds = ["strict", "strict", "catch-all", "strict-starttls", "greylist"];
const domainSpecs = Array.from({ length: DOMAINS }, (_, d) => ({ name: `d${d}.bench`, behaviour: kinds[d % kinds.length] }));
const perDomain = Math.ceil(CONTACTS / DOMAINS);
const emails = [];
for (let i = 0; i < CONTACTS; i++) {
  const d = domainSpecs[i % DOMAINS];
  emails.push(`user${Math.floor(i / DOMAINS)}@${d.name}`);
}
// Half the mailboxes exist on the strict servers.
const mailboxesOf = (d) => emails.filter((e, i) => e.endsWith(`@${d.name}`) && i % 2 === 0);
const thr = await startServers(domainSpecs.map((d) => ({ behaviour: d.behaviour, mailboxes: mailboxesOf(d) })));
const zone = { mx: {}, a: {} };
for (const [i, d] of domainSpecs.entries()) {
  zone.mx[d.name] = [{ exchange: `mx.${d.name}`, priority: 10 }];
  zone.a[`mx.${d.name}`] = [`127.0.0.${2 + i}`];
}
const thrDns = await startDns(zone);
const connectionsNow = () => thr.servers.reduce((n, s) => n + s.stats.connections, 0);

const { instance, teamId } = instanceWith(thrDns, thr.port);
await addContacts(instance.services, teamId, emails);
let started = performance.now();
const result = await instance.services.verification.verify(teamId, { all: true });
const oursMs = performance.now() - started;
const oursConnections = connectionsNow();
const maxOpen = Math.max(...thr.servers.map((s) => s.stats.maxOpen));
instance.close();

// The naive loop: one connection per address, 8 at a time.
async function naiveOne(address, domainIndex) {
  const { session, greeting } = await SmtpSession.open({ address: `127.0.0.${2 + domainIndex}`, port: thr.port, hostName: `mx.${domainSpecs[domainIndex].name}`, timeoutMs: 5000 });
  try {
    if (greeting.code !== 220) return "unknown";
    await session.hello("bench.outreach.test");
    if (session.extensions.has("STARTTLS")) {
      await session.startTls();
      await session.hello("bench.outreach.test");
    }
    await session.command("MAIL FROM:<bounce+verify@bounces.outreach.localhost>");
    const rcpt = await session.command(`RCPT TO:<${address}>`);
    const random = await session.command(`RCPT TO:<${randomLocalPart()}@${address.split("@")[1]}>`);
    await session.quit();
    if (rcpt.code >= 400 && rcpt.code < 500) return "unknown";
    if (rcpt.code >= 500) return "undeliverable";
    return random.code < 300 ? "risky" : "deliverable";
  } finally {
    session.close();
  }
}
const before = connectionsNow();
started = performance.now();
const naiveTally = { deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 };
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < emails.length) {
      const i = next++;
      naiveTally[await naiveOne(emails[i], i % DOMAINS)]++;
    }
  }),
);
const naiveMs = performance.now() - started;
const naiveConnections = connectionsNow() - before;
for (const s of thr.servers) s.close();

const same = JSON.stringify(result.byStatus) === JSON.stringify(naiveTally);
console.log(`\nthroughput: ${CONTACTS} contacts over ${DOMAINS} domains (strict, catch-all, STARTTLS, greylisting), ${LATENCY_MS} ms per SMTP reply`);
console.log(`  ours : ${(CONTACTS / (oursMs / 1000)).toFixed(0)} contacts/s (${(oursMs / 1000).toFixed(2)} s), ${oursConnections} connections = ${(oursConnections / DOMAINS).toFixed(1)} per domain, at most ${maxOpen} open per host; ${JSON.stringify(result.byStatus)}`);
console.log(`  naive: ${(CONTACTS / (naiveMs / 1000)).toFixed(0)} contacts/s (${(naiveMs / 1000).toFixed(2)} s), ${naiveConnections} connections = ${(naiveConnections / DOMAINS).toFixed(1)} per domain; ${JSON.stringify(naiveTally)}`);
console.log(`  ratio: ${(naiveConnections / oursConnections).toFixed(1)}x fewer connections, ${(naiveMs / oursMs).toFixed(1)}x faster; same statuses: ${same} (${perDomain} addresses per domain)`);

// ---- 3. memory on a large workspace (probe off) --------------------------------------------

if (MEMORY_CONTACTS > 0) {
  const memDns = await startDns({ mx: { "big.bench": [{ exchange: "mx.big.bench", priority: 10 }], "gone.bench": [{ exchange: ".", priority: 0 }] }, a: {} });
  const { instance: big, teamId: bigTeam } = instanceWith(memDns, undefined, { smtp: false, clock: new ManualClock(Date.now()) });
  const bigEmails = Array.from({ length: MEMORY_CONTACTS }, (_, i) => `p${i}@${i % 10 === 0 ? "gone" : "big"}.bench`);
  const t0 = performance.now();
  await addContacts(big.services, bigTeam, bigEmails);
  const insertS = (performance.now() - t0) / 1000;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  let lines = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t1 = performance.now();
  const r = await big.services.verification.verify(bigTeam, { all: true }, { onProgress: () => lines++ });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(
    `\nmemory: ${MEMORY_CONTACTS} contacts (inserted in ${insertS.toFixed(0)} s) verified in ${((performance.now() - t1) / 1000).toFixed(1)} s, ${lines} progress reports, ` +
      `peak RSS growth ${((peak - rssBefore) / 1048576).toFixed(1)} MiB; ${JSON.stringify(r.byStatus)}`,
  );
  big.close();
  memDns.close();
}
accDns.close();
thrDns.close();
