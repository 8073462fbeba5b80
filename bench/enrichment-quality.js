// Email and social-profile precision/recall on the hand-labelled fixture corpus
// (bench/fixtures/corpus.js, 40 sites), for our crawler+extractor and for the
// homepage-only baseline (bench/fixtures/homepage-baseline.js).
// bench/enrichment-realistic.js measures the same on the larger realistic corpus.
//
//   npm run build && node bench/enrichment-quality.js
import { CORPUS } from "./fixtures/corpus.js";
import { fetchText, homepageBaseline } from "./fixtures/homepage-baseline.js";
import { loopbackLookup, startSites } from "./fixtures/server.js";
import { AddressPolicy } from "../dist/providers/web/address-policy.js";
import { SafeWebFetcher } from "../dist/providers/web/safe-fetcher.js";
import { crawlSite } from "../dist/providers/web/site-crawler.js";

const sites = await startSites(Object.fromEntries(CORPUS.map((s) => [s.host, s.pages])));

async function baseline(site) {
  return homepageBaseline(await fetchText(sites.url(site.host)));
}

const fetcher = new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach-bench/0.1", lookup: loopbackLookup });
async function ours(site) {
  const facts = await crawlSite(fetcher, sites.url(site.host));
  return { email: facts.email, socials: facts.socials };
}

/** Compare profiles leniently: scheme, www/m./country prefixes, trailing slash and query do not matter. */
const canon = (url) => url.toLowerCase().replace(/^(https?:)?\/\//, "").replace(/^(www|m|[a-z]{2})\./, "").replace(/[?#].*$/, "").replace(/\/+$/, "").replace(/^twitter\.com/, "x.com");

function score(results) {
  let emailPredicted = 0, emailCorrect = 0, emailExpected = 0, socialPredicted = 0, socialCorrect = 0, socialExpected = 0;
  const misses = [];
  for (const { site, got } of results) {
    const truth = site.truth;
    if (truth.email) emailExpected++;
    if (got.email) {
      emailPredicted++;
      if (truth.email && got.email.toLowerCase() === truth.email.toLowerCase()) emailCorrect++;
      else misses.push(`${site.host}: email ${got.email} (truth ${truth.email})`);
    } else if (truth.email) misses.push(`${site.host}: no email (truth ${truth.email})`);
    socialExpected += Object.keys(truth.socials).length;
    for (const [network, url] of Object.entries(got.socials)) {
      socialPredicted++;
      if (truth.socials[network] && canon(truth.socials[network]) === canon(url)) socialCorrect++;
      else misses.push(`${site.host}: ${network} ${url}`);
    }
  }
  const ratio = (a, b) => (b === 0 ? NaN : a / b);
  return {
    email: { precision: ratio(emailCorrect, emailPredicted), recall: ratio(emailCorrect, emailExpected), correct: emailCorrect, predicted: emailPredicted, expected: emailExpected },
    socials: { precision: ratio(socialCorrect, socialPredicted), recall: ratio(socialCorrect, socialExpected), correct: socialCorrect, predicted: socialPredicted, expected: socialExpected },
    misses,
  };
}

const oursResults = [];
const baseResults = [];
for (const site of CORPUS) {
  oursResults.push({ site, got: await ours(site) });
  baseResults.push({ site, got: await baseline(site) });
}
await sites.close();

const fmt = (x) => (Number.isNaN(x) ? "n/a" : x.toFixed(3));
const report = (name, s) =>
  console.log(
    `${name.padEnd(9)} email P=${fmt(s.email.precision)} R=${fmt(s.email.recall)} (${s.email.correct}/${s.email.predicted} predicted, ${s.email.expected} expected)  ` +
      `socials P=${fmt(s.socials.precision)} R=${fmt(s.socials.recall)} (${s.socials.correct}/${s.socials.predicted}, ${s.socials.expected} expected)`,
  );
const a = score(oursResults);
const b = score(baseResults);
console.log(`corpus: ${CORPUS.length} sites, ${CORPUS.filter((s) => s.truth.email).length} with an email, ${CORPUS.reduce((n, s) => n + Object.keys(s.truth.socials).length, 0)} profiles`);
report("ours", a);
report("baseline", b);
if (a.misses.length) console.log("ours misses:\n  " + a.misses.join("\n  "));
if (process.argv.includes("--verbose")) console.log("baseline misses:\n  " + b.misses.join("\n  "));
