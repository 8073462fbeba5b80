// Enrichment quality on the realistic corpus (bench/fixtures/realistic-corpus/: small-
// business sites as WordPress, Wix, Squarespace, Jimdo, site builders, TYPO3, Joomla,
// Shopify and hand-written pages build them, in 15 countries), for our crawler and for
// the homepage-only baseline (bench/fixtures/homepage-baseline.js). How the truth was
// decided: bench/README.md.
//
//   npm run build && node bench/enrichment-realistic.js [--verbose] [--only <host>] [--json <file>] [--browser <chromium>]
//
// With --browser, script-built sites are also opened in that Chromium (OUTREACH_BROWSER):
// R(shown), recall over every site that shows an email in a browser or in a PDF it links
// (truth.rendered; image-only addresses excepted), is then the figure to read.
// --exclude-rendered: leave out the sites added for rendering (truth.rendered set, sites/
// scripted.js), to compare static-only figures with the corpus before them.
//
// Email precision: returned addresses that are the truth. Recall: sites whose truth can
// be found without JavaScript (truth.findable) where the truth was returned. Best-email
// accuracy: sites where the answer is exactly right (the truth; none when the site has no
// address; none or the truth when the address cannot be found without JavaScript).
import { writeFileSync } from "node:fs";
import { CORPUS, SCRIPTED_HOSTS } from "./fixtures/realistic-corpus/index.js";
import { startCorpus } from "./fixtures/realistic-corpus/serve.js";
import { fetchText, homepageBaseline } from "./fixtures/homepage-baseline.js";
import { loopbackLookup } from "./fixtures/server.js";
import { AddressPolicy } from "../dist/providers/web/address-policy.js";
import { SafeWebFetcher } from "../dist/providers/web/safe-fetcher.js";
import { crawlSite } from "../dist/providers/web/site-crawler.js";
import { BrowserRenderer } from "../dist/providers/web/browser-renderer.js";

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const only = option("--only");
const pool = args.includes("--exclude-rendered") ? CORPUS.filter((s) => !SCRIPTED_HOSTS.has(s.host)) : CORPUS;
const corpus = only ? pool.filter((s) => s.host === only || `${s.host}${s.path ?? ""}` === only) : pool;
if (corpus.length === 0) throw new Error(`no site ${only} in the corpus`);

const fetcher = new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach-bench/0.1", lookup: loopbackLookup });

/** The only code that knows the crawler's API: a website URL in, { email, socials } out. */
const browserPath = option("--browser");
const renderer = browserPath ? new BrowserRenderer({ executablePath: browserPath, pages: 2, fetcher }) : undefined;
async function crawl(url) {
  const facts = await crawlSite(fetcher, url, { renderer, signal: AbortSignal.timeout(30_000) });
  return { email: facts.email ?? null, socials: facts.socials ?? {} };
}

const NETWORKS = ["facebook", "instagram", "twitter", "linkedin"];

/**
 * A profile's identity, so that equivalent links compare equal: scheme, www./m./locale
 * subdomains, trailing slashes, query strings and x.com vs twitter.com do not matter;
 * facebook.com/pages/Name/ID, /profile.php?id=ID and /ID are one page; twitter.com/#!/h is h.
 */
export function profileKey(network, url) {
  let u;
  try {
    u = new URL(/^https?:\/\//i.test(url) ? url : `https://${url.replace(/^\/\//, "")}`);
  } catch {
    return `${network}:${url.toLowerCase()}`;
  }
  let path = u.pathname;
  if (u.hash.startsWith("#!/")) path = u.hash.slice(2);
  const parts = path.split("/").filter(Boolean).map((p) => decodeURIComponent(p).toLowerCase());
  let key = parts[0] ?? "";
  if (network === "facebook") {
    if (parts[0] === "pages") key = parts.find((p) => /^\d{6,}$/.test(p)) ?? parts[1] ?? "";
    else if (parts[0] === "profile.php") key = u.searchParams.get("id") ?? "";
    else if (parts[0] === "people") key = parts[2] ?? parts[1] ?? "";
  } else if (network === "linkedin") key = parts.slice(0, 2).join("/");
  return `${network}:${key.replace(/^@/, "")}`;
}

const lower = (s) => (s ? s.trim().toLowerCase() : null);

function judge(site, got) {
  const truth = site.truth;
  const email = lower(got.email);
  const want = lower(truth.email);
  const emailRight = email !== null && email === want;
  const exact = email === want || (email === null && want !== null && !truth.findable);
  const socials = NETWORKS.map((network) => {
    const have = got.socials[network];
    const expected = truth.socials[network];
    return { network, have, expected, right: Boolean(have && expected && profileKey(network, have) === profileKey(network, expected)) };
  });
  // The whole answer is right: the email as above and every profile (none missing, none wrong).
  const allRight = exact && socials.every((x) => x.right || (!x.have && !x.expected));
  return { email, emailRight, exact, socials, allRight };
}

function score(results) {
  const s = { predicted: 0, correct: 0, findable: 0, correctFindable: 0, withEmail: 0, correctAll: 0, shown: 0, correctShown: 0, exact: 0, socialPredicted: 0, socialCorrect: 0, socialExpected: 0 };
  for (const { site, verdict } of results) {
    const t = site.truth;
    if (verdict.email) s.predicted++;
    if (verdict.emailRight) s.correct++;
    if (t.email) s.withEmail++;
    if (t.email && verdict.emailRight) s.correctAll++;
    if (t.email && (t.rendered ?? t.findable)) {
      s.shown++;
      if (verdict.emailRight) s.correctShown++;
    }
    if (t.email && t.findable) {
      s.findable++;
      if (verdict.emailRight) s.correctFindable++;
    }
    if (verdict.exact) s.exact++;
    for (const x of verdict.socials) {
      if (x.have) s.socialPredicted++;
      if (x.expected) s.socialExpected++;
      if (x.right) s.socialCorrect++;
    }
  }
  const ratio = (a, b) => (b === 0 ? NaN : a / b);
  return {
    ...s,
    precision: ratio(s.correct, s.predicted),
    recall: ratio(s.correctFindable, s.findable),
    recallAll: ratio(s.correctAll, s.withEmail),
    recallShown: ratio(s.correctShown, s.shown),
    accuracy: ratio(s.exact, results.length),
    socialPrecision: ratio(s.socialCorrect, s.socialPredicted),
    socialRecall: ratio(s.socialCorrect, s.socialExpected),
  };
}

function misses(results) {
  const lines = [];
  for (const { site, got, verdict, error } of results) {
    const t = site.truth;
    const problems = [];
    if (error) problems.push(`crawl failed: ${error}`);
    if (!verdict.exact) {
      const kind = verdict.email ? t.decoys?.[verdict.email] ?? Object.entries(t.decoys ?? {}).find(([a]) => a.toLowerCase() === verdict.email)?.[1] : undefined;
      problems.push(verdict.email ? `email ${got.email}${kind ? ` (${kind})` : ""}, truth ${t.email ?? "none"}` : `no email, truth ${t.email}`);
    }
    for (const x of verdict.socials) {
      if (x.have && !x.right) problems.push(`${x.network} ${x.have}${x.expected ? `, truth ${x.expected}` : ", truth none"}`);
      else if (!x.have && x.expected) problems.push(`no ${x.network}, truth ${x.expected}`);
    }
    if (problems.length) lines.push(`${site.host}${site.path ?? ""} [${site.country} ${site.cms}${site.traps.length ? `; ${site.traps.join(", ")}` : ""}]\n      ${problems.join("\n      ")}${t.notes ? `\n      notes: ${t.notes}` : ""}`);
  }
  return lines;
}

/** Sites, and sites whose whole answer is right, per value of a site property (trap, CMS family, country). */
function breakdown(results, keysOf) {
  const table = new Map();
  for (const { site, verdict } of results) {
    for (const key of keysOf(site)) {
      const row = table.get(key) ?? { sites: 0, right: 0 };
      row.sites++;
      if (verdict.allRight) row.right++;
      table.set(key, row);
    }
  }
  return [...table.entries()].sort((a, b) => b[1].sites - a[1].sites || a[0].localeCompare(b[0]));
}

const server = await startCorpus(corpus);
const ours = [];
const base = [];
for (const site of corpus) {
  const url = server.startUrl(site);
  let got = { email: null, socials: {} };
  let error;
  try {
    got = await crawl(url);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  ours.push({ site, got, error, verdict: judge(site, got) });
  let baseGot = { email: null, socials: {} };
  try {
    baseGot = homepageBaseline(await fetchText(url));
  } catch {
    // an unreachable homepage is the baseline's loss, as it is ours
  }
  base.push({ site, got: baseGot, verdict: judge(site, baseGot) });
}
await server.close();

const fmt = (x) => (Number.isNaN(x) ? "n/a" : x.toFixed(3));
const a = score(ours);
const b = score(base);
const count = (key) => breakdown(ours, (s) => [key(s)]).map(([k, v]) => `${k} ${v.sites}`).join(", ");
console.log(`realistic corpus: ${corpus.length} sites; ${a.withEmail} with an email, ${a.findable} of them findable without JavaScript; ${a.socialExpected} profiles`);
console.log(`  countries: ${count((s) => s.country)}`);
console.log(`  CMS: ${count((s) => s.cms.split("/")[0])}`);
const row = (name, s) =>
  console.log(
    `${name.padEnd(9)} email P=${fmt(s.precision)} (${s.correct}/${s.predicted})  R(findable)=${fmt(s.recall)} (${s.correctFindable}/${s.findable})  R(all)=${fmt(s.recallAll)}  R(shown)=${fmt(s.recallShown)} (${s.correctShown}/${s.shown})  best-email accuracy=${fmt(s.accuracy)} (${s.exact}/${corpus.length})  ` +
      `socials P=${fmt(s.socialPrecision)} R=${fmt(s.socialRecall)} (${s.socialCorrect}/${s.socialPredicted} returned, ${s.socialExpected} expected)`,
  );
row("ours", a);
row("baseline", b);
console.log(`recall ours/baseline: ${b.recall === 0 ? "∞" : (a.recall / b.recall).toFixed(2)}×`);
console.log(`sites entirely right (email and every profile) by trap, ours | baseline:`);
const trapsOf = (s) => (s.traps.length ? s.traps : ["(none)"]);
const baseByTrap = new Map(breakdown(base, trapsOf));
for (const [trap, v] of breakdown(ours, trapsOf)) console.log(`  ${trap.padEnd(26)} ${String(v.right).padStart(3)}/${String(v.sites).padEnd(3)} | ${baseByTrap.get(trap)?.right ?? "-"}`);
console.log(`entirely right by CMS: ${breakdown(ours, (s) => [s.cms.split("/")[0]]).map(([k, v]) => `${k} ${v.right}/${v.sites}`).join(", ")}`);
console.log(`entirely right by country: ${breakdown(ours, (s) => [s.country]).map(([k, v]) => `${k} ${v.right}/${v.sites}`).join(", ")}`);
const oursMisses = misses(ours);
console.log(`\nours misses (${oursMisses.length} sites):\n  ${oursMisses.join("\n  ")}`);
if (args.includes("--verbose")) console.log(`\nbaseline misses:\n  ${misses(base).join("\n  ")}`);
const jsonFile = option("--json");
if (jsonFile) writeFileSync(jsonFile, JSON.stringify(ours.map(({ site, got, error, verdict }) => ({ site: `${site.host}${site.path ?? ""}`, got, error, exact: verdict.exact, truth: site.truth.email })), null, 2));
await renderer?.close();
