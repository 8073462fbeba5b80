// Sending domains: what the design choices cost, measured in one run.
//   1. DKIM key generation: generateKeyPairSync (baseline) vs the async generateKeyPair the
//      service uses: wall time, and the longest event-loop stall while it runs (what other
//      requests on the same server feel).
//   2. One verification's DNS work against a DNS server on 127.0.0.1: the six lookups one
//      after another (baseline) vs all at once, as the service does them.
// Run: npm run build && node bench/sending-domains.mjs [rounds]
import { generateKeyPair, generateKeyPairSync } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { promisify } from "node:util";
import dns2 from "dns2";
import { NodeDnsLookup } from "../dist/providers/dns/resolver.js";

const rounds = Number(process.argv[2] ?? 15);
const generateAsync = promisify(generateKeyPair);
const options = {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "der" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function measureStall(run) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // A 1 ms ticker stands in for other requests: it can only run when the loop is free.
  let last = performance.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 5));
  last = performance.now();
  const start = performance.now();
  await run();
  const wall = performance.now() - start;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(ticker);
  histogram.disable();
  return { wall, stall: worst };
}

const syncRuns = [];
const asyncRuns = [];
for (let i = 0; i < rounds; i++) {
  syncRuns.push(await measureStall(async () => generateKeyPairSync("rsa", options)));
  asyncRuns.push(await measureStall(() => generateAsync("rsa", options)));
}

// A zone with the five records of a verified domain.
const key = generateKeyPairSync("rsa", options).publicKey.toString("base64");
const dkim = `v=DKIM1; k=rsa; p=${key}`;
const zone = {
  "_outreach.example.com": ["outreach-verification=abc"],
  "sel._domainkey.example.com": [[dkim.slice(0, 255), dkim.slice(255)]],
  "example.com": ["v=spf1 include:_spf.bounces.example ~all"],
  "_dmarc.example.com": ["v=DMARC1; p=none"],
};
const { Packet } = dns2;
const server = dns2.createServer({
  udp: true,
  tcp: true,
  handle(request, send) {
    const [q] = request.questions;
    const name = q.name.toLowerCase();
    const response = Packet.createResponseFromRequest(request);
    if (name === "bounce.example.com") response.answers.push({ name: q.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: "bounces.example" });
    else if (zone[name]) for (const data of zone[name]) response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data });
    else response.header.rcode = Packet.RCODE.NXDOMAIN;
    send(response);
  },
});
const { udp } = await server.listen({ udp: { port: 0, address: "127.0.0.1" }, tcp: { port: 0, address: "127.0.0.1" } });
const lookup = new NodeDnsLookup({ servers: [`127.0.0.1:${udp.port}`], timeoutMs: 2000, tries: 2 });
const questions = [
  () => lookup.txt("_outreach.example.com"),
  () => lookup.txt("sel._domainkey.example.com"),
  () => lookup.cname("bounce.example.com"),
  () => lookup.txt("example.com"),
  () => lookup.txt("_dmarc.example.com"),
  () => lookup.txt("_dmarc.example.org"),
];
const sequential = [];
const parallel = [];
for (let i = 0; i < rounds * 4; i++) {
  let t = performance.now();
  for (const ask of questions) await ask();
  sequential.push(performance.now() - t);
  t = performance.now();
  await Promise.all(questions.map((ask) => ask()));
  parallel.push(performance.now() - t);
}
await server.close();

const row = (name, base, value, unit = "ms") =>
  console.log(`${name.padEnd(58)} ${value.toFixed(2).padStart(9)} ${unit}   ratio ${(value / base).toFixed(2)}`);
console.log(`sending domains bench, ${rounds} key rounds, ${rounds * 4} lookup rounds (medians)`);
const syncWall = median(syncRuns.map((r) => r.wall));
row("DKIM 2048 keygen, generateKeyPairSync (baseline) wall", syncWall, syncWall);
row("DKIM 2048 keygen, generateKeyPair async wall", syncWall, median(asyncRuns.map((r) => r.wall)));
const syncStall = median(syncRuns.map((r) => r.stall));
row("  longest event-loop stall, sync (baseline)", syncStall, syncStall);
row("  longest event-loop stall, async", syncStall, median(asyncRuns.map((r) => r.stall)));
const seq = median(sequential);
row("verify DNS work, 6 lookups sequential (baseline)", seq, seq);
row("verify DNS work, 6 lookups in parallel", seq, median(parallel));
