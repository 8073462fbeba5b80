import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { decodeCapped } from "../../../src/providers/web/content-coding.js";
import type { EncodedBody, PageExtractor } from "../../../src/providers/web/extraction-pool.js";
import { extractPage } from "../../../src/providers/web/extract/page-facts.js";
import { SafeWebFetcher } from "../../../src/providers/web/safe-fetcher.js";
import { crawlSite } from "../../../src/providers/web/site-crawler.js";
import { fixtureLookup, startFixtureSites } from "../../helpers/fixture-sites.js";

const MiB = 1024 * 1024;
const fetcher = () => new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach/0.1", lookup: fixtureLookup, maxBodyBytes: MiB });
/** 50 MiB of one letter in about 50 KB of gzip. */
const bomb = gzipSync(Buffer.alloc(50 * MiB, "a"));

describe("compressed pages are decoded in the extraction worker, not on the event loop (issue 27, item 6)", () => {
  it("fetchEncodedPage hands a gzip bomb over as sent: its compressed bytes, not 1 MiB inflated", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": { headers: { "content-encoding": "gzip" }, body: bomb } } });
    const page = await fetcher().fetchEncodedPage(sites.url("shop.de"));
    expect(page).toMatchObject({ coding: "gzip", maxDecodedBytes: MiB, truncated: false });
    expect(Buffer.from(page.body).equals(bomb)).toBe(true);
    // Decoded where the worker decodes it: stopped at the cap, and said so.
    const decoded = await decodeCapped(page.body, "gzip", page.maxDecodedBytes);
    expect(decoded).toMatchObject({ truncated: true });
    expect(decoded.body.length).toBe(MiB);
    expect(Buffer.from(decoded.body).every((byte) => byte === 0x61)).toBe(true);
  });

  it("an uncompressed page is not marked encoded; fetchPage still decodes on its own", async () => {
    const html = "<p>Grüße: hallo@shop.de</p>";
    const sites = await startFixtureSites({ "shop.de": { "/": html, "/gz": { headers: { "content-encoding": "gzip" }, body: gzipSync(html) } } });
    const plain = await fetcher().fetchEncodedPage(sites.url("shop.de"));
    expect(plain.coding).toBeUndefined();
    expect(Buffer.from(plain.body).toString()).toBe(html);
    expect((await fetcher().fetchPage(sites.url("shop.de", "/gz"))).text).toBe(html);
  });

  it("decodeCapped undoes gzip, deflate and brotli; keeps the decoded prefix of a cut stream; refuses bytes that are not the coding", async () => {
    const html = Buffer.from("<p>Grüße aus München</p>".repeat(2000));
    for (const [coding, bytes] of [["gzip", gzipSync(html)], ["deflate", deflateSync(html)], ["br", brotliCompressSync(html)]] as const) {
      const decoded = await decodeCapped(bytes, coding, MiB);
      expect(Buffer.from(decoded.body).equals(html), coding).toBe(true);
      expect(decoded.truncated).toBe(false);
    }
    const cut = await decodeCapped(gzipSync(html).subarray(0, 200), "gzip", MiB);
    expect(cut.body.length).toBeGreaterThan(0);
    expect(html.subarray(0, cut.body.length).equals(Buffer.from(cut.body))).toBe(true);
    await expect(decodeCapped(Buffer.from("<p>not gzip at all</p>"), "gzip", MiB)).rejects.toThrow(/unreadable gzip body/);
  });

  it("the crawler passes the encoded body and its cap to the extractor, and finds the address the worker decodes", async () => {
    const home = '<title>Bäckerei</title><p>Kontakt: <a href="mailto:info@gzip-shop.de">info@gzip-shop.de</a></p>';
    const sites = await startFixtureSites({ "gzip-shop.de": { "/": { headers: { "content-encoding": "gzip" }, body: gzipSync(home) } } });
    const seen: Array<{ bytes: number; encoded: EncodedBody | undefined }> = [];
    const recording: PageExtractor = {
      async extract(bytes, contentType, url, _signal, encoded) {
        seen.push({ bytes: bytes.length, encoded });
        return extractPage(encoded ? (await decodeCapped(bytes, encoded.coding, encoded.maxBytes)).body : bytes, contentType, url);
      },
    };
    const facts = await crawlSite(fetcher(), sites.url("gzip-shop.de"), { extractor: recording, pageBudget: 1 });
    expect(facts.email).toBe("info@gzip-shop.de");
    expect(seen[0]).toEqual({ bytes: gzipSync(home).length, encoded: { coding: "gzip", maxBytes: MiB } });
    // And through the real worker pool (the process's shared one).
    expect((await crawlSite(fetcher(), sites.url("gzip-shop.de"), { pageBudget: 1 })).email).toBe("info@gzip-shop.de");
  });
});
