import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSearchOptions, type SearchFlags } from "../../src/cli/commands/leads/search.js";
import { parseRetryOptions } from "../../src/cli/commands/leads/retry.js";
import { parseImportOptions as parseContactsImport } from "../../src/cli/commands/contacts/import.js";
import { parseListOptions as parseContactsList } from "../../src/cli/commands/contacts/list.js";
import { parseUpdateOptions as parseContactsUpdate } from "../../src/cli/commands/contacts/update.js";
import { parseVerifyOptions as parseDomainsVerify } from "../../src/cli/commands/domains/verify.js";
import { parseAddOptions as parseDomainsAdd } from "../../src/cli/commands/domains/add.js";
import { parseImportOptions as parsePlacesImport } from "../../src/cli/commands/places/import.js";
import { parseDownloadOptions } from "../../src/cli/commands/places/download.js";
import { parsePlansSetOptions } from "../../src/cli/commands/admin/plans.js";
import { parseKeysRotateOptions } from "../../src/cli/commands/admin/keys-rotate.js";
import { parseEditOptions } from "../../src/cli/commands/campaigns/edit.js";
import { parseOpenersOptions } from "../../src/cli/commands/campaigns/openers.js";
import { parseUnconfirmedOptions } from "../../src/cli/commands/campaigns/unconfirmed.js";
import { parseBrandSetOptions } from "../../src/cli/commands/brand.js";
import { EXIT, exitCodeFor, UsageError } from "../../src/cli/exit-codes.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

/**
 * Each verb's flags are parsed by a pure function (commander's raw options → typed options,
 * or a usage error): these tests call them with no data directory, server or client at all,
 * which is the seam the GitHub CLI's layout gives (docs/architecture.md, "The CLI").
 */

/** The usage error a parse throws, with the exit code main would give it. */
function usageError(parse: () => unknown): { message: string; exit: number } {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return { message: (err as Error).message, exit: exitCodeFor(err) };
  }
  throw new Error("the parse accepted what it should refuse");
}

const SEARCH: SearchFlags = { keywords: "dentist", location: "Vaduz" };

describe("leads search flags", () => {
  it("refuses --pages with --all, naming both (exit 2)", () => {
    const { message, exit } = usageError(() => parseSearchOptions({ ...SEARCH, pages: "2", all: true }));
    expect(exit).toBe(EXIT.usage);
    expect(message).toBe("--pages 2 contradicts --all (which fetches every page): give one of them");
  });

  it("reads --pages and --all as a page count", () => {
    expect(parseSearchOptions({ ...SEARCH, pages: "3" }).pages).toBe(3);
    expect(parseSearchOptions({ ...SEARCH, all: true }).pages).toBe(Number.POSITIVE_INFINITY);
    expect(parseSearchOptions(SEARCH).pages).toBe(1);
    expect(usageError(() => parseSearchOptions({ ...SEARCH, pages: "0" })).message).toMatch(/^--pages must be a whole number ≥ 1/);
  });

  it("checks that --radius is a number and leaves its bounds (1..100) to the server, whose 400 names the flag", () => {
    expect(usageError(() => parseSearchOptions({ ...SEARCH, radius: "ten" })).message).toBe('--radius must be a number (got "ten")');
    expect(parseSearchOptions({ ...SEARCH, radius: "500" }).input.radiusKm).toBe(500);
    expect(parseSearchOptions({ ...SEARCH, radius: "2.5" }).input.radiusKm).toBe(2.5);
    expect(parseSearchOptions(SEARCH).input.radiusKm).toBeNull();
  });

  it("takes --lat and --lng together, and a centre instead of --location", () => {
    expect(usageError(() => parseSearchOptions({ keywords: "cafe", lat: "47.1" })).message).toBe("--lat and --lng go together: give both or neither");
    expect(usageError(() => parseSearchOptions({ keywords: "cafe" })).message).toBe("missing --location (or --lat and --lng)");
    expect(parseSearchOptions({ keywords: "cafe", lat: "47.141", lng: "9.5209" }).input).toMatchObject({ location: "47.141,9.5209", lat: 47.141, lng: 9.5209 });
  });

  it("chooses the format from the flag, else from --out's extension, and refuses --complete with --ndjson", () => {
    expect(parseSearchOptions({ ...SEARCH, out: "leads.csv" }).format).toBe("csv");
    expect(parseSearchOptions({ ...SEARCH, out: "leads.csv", json: true }).format).toBe("json");
    expect(usageError(() => parseSearchOptions({ ...SEARCH, json: true, csv: true })).message).toMatch(/^use only one of --json, --ndjson, --csv/);
    expect(usageError(() => parseSearchOptions({ ...SEARCH, ndjson: true, complete: true })).message).toMatch(/^--complete merges results/);
  });

  it("checks --sort and --source against the names it knows", () => {
    expect(parseSearchOptions({ ...SEARCH, sort: " Distance " }).input.sort).toBe("distance");
    expect(usageError(() => parseSearchOptions({ ...SEARCH, sort: "price" })).message).toMatch(/^--sort must be one of relevance, distance, name/);
    expect(parseSearchOptions({ ...SEARCH, source: "local, LOCAL" }).input.sources).toEqual(["local"]);
    expect(usageError(() => parseSearchOptions({ ...SEARCH, source: "yelp" })).message).toMatch(/^--source: unknown source "yelp"/);
  });

  it("leads retry takes a UUID token only", () => {
    expect(usageError(() => parseRetryOptions("not-a-token", {})).message).toMatch(/^TOKEN must be the enrichmentRetryToken of a search, a UUID/);
    expect(parseRetryOptions(" 3f1c2b9e-6d0a-4c55-9a7e-2b1f0c8d4e61 ", { out: "x.ndjson" })).toEqual({ token: "3f1c2b9e-6d0a-4c55-9a7e-2b1f0c8d4e61", format: "ndjson", out: "x.ndjson" });
  });
});

describe("contacts flags", () => {
  const IMPORT = { batchSize: "500" };

  it("contacts import checks --encoding before any file is read", () => {
    const { message, exit } = usageError(() => parseContactsImport("no-such-file.csv", { ...IMPORT, encoding: "klingon-8" }));
    expect(exit).toBe(EXIT.usage);
    expect(message).toMatch(/^--encoding klingon-8: unknown encoding/);
    expect(parseContactsImport("people.csv", { ...IMPORT, encoding: "Windows-1252" }).encoding).toBe("Windows-1252");
    expect(parseContactsImport("people.csv", IMPORT).encoding).toBeUndefined();
  });

  it("contacts import checks --batch-size and splits comma-listed tags", () => {
    expect(usageError(() => parseContactsImport("-", { batchSize: "0" })).message).toMatch(/^--batch-size must be a whole number from 1 to \d+/);
    expect(parseContactsImport("-", { ...IMPORT, tag: ["a, b", "c"], strict: true })).toMatchObject({ file: "-", tags: ["a", "b", "c"], strict: true, batchSize: 500 });
  });

  it("contacts list refuses --all with --page and unknown statuses", () => {
    expect(usageError(() => parseContactsList({ all: true, page: "2" })).message).toBe("--all walks every page: leave out --page");
    expect(usageError(() => parseContactsList({ status: "active,gone" })).message).toMatch(/^--status must be a comma list of active, unsubscribed/);
    expect(parseContactsList({ tag: ["lead,berlin"], limit: "50" })).toMatchObject({ filters: { tags: "lead,berlin" }, limit: 50, all: false });
  });

  it("contacts update needs a change and clears with ''", () => {
    expect(usageError(() => parseContactsUpdate("ct_1", {})).message).toMatch(/^nothing to change/);
    expect(usageError(() => parseContactsUpdate("ct_1", { tag: ["a"], clearTags: true })).message).toMatch(/--tag and --clear-tags/);
    expect(parseContactsUpdate("ct_1", { phone: "", timeZone: "" }).change).toEqual({ phone: null, timeZone: null });
  });
});

describe("flags of other verbs", () => {
  it("domains verify reads --timeout and --interval as durations; domains add needs both sender flags", () => {
    expect(parseDomainsVerify("example.com", { timeout: "10m", interval: "10s" })).toMatchObject({ timeoutMs: 600_000, intervalMs: 10_000, wait: false });
    expect(usageError(() => parseDomainsVerify("example.com", { timeout: "soon", interval: "10s" })).message).toMatch(/^--timeout must be a duration/);
    expect(usageError(() => parseDomainsAdd("example.com", { senderName: "Acme" })).message).toBe("missing --sender-email");
  });

  it("places import needs files or --sample and a well-formed --bbox; places download needs a region unless --list", () => {
    expect(usageError(() => parsePlacesImport([], {})).message).toMatch(/^give the files to import, or --sample/);
    expect(usageError(() => parsePlacesImport(["x.csv"], { bbox: "1,2,3" })).exit).toBe(EXIT.usage);
    expect(parsePlacesImport(["a.csv", "b.csv"], { replace: true }).files).toEqual(["a.csv", "b.csv"]);
    expect(usageError(() => parseDownloadOptions(undefined, {})).message).toMatch(/^name a region to download/);
    expect(parseDownloadOptions(undefined, { list: "europe" })).toEqual({ list: true, filter: "europe", json: undefined });
  });

  it("admin limits are whole numbers or 'unlimited'; the key rotation's batch size is bounded", () => {
    expect(parsePlansSetOptions("agency", { dailySearches: "unlimited", maxContacts: "200", customSender: "yes" })).toEqual({
      name: "agency",
      dailySearches: null,
      maxContacts: 200,
      customSender: true,
      dailySends: undefined,
    });
    expect(usageError(() => parsePlansSetOptions("free", { dailySends: "-1" })).message).toMatch(/^--daily-sends must be a whole number ≥ 0 or "unlimited"/);
    expect(usageError(() => parseKeysRotateOptions({ batchSize: "20000" })).message).toMatch(/^--batch-size must be a whole number from 1 to 10000/);
  });

  it("campaign verbs: edit needs a change, openers' flags go in pairs, unconfirmed ids need an action", () => {
    expect(usageError(() => parseEditOptions("cmp_1", {})).message).toMatch(/^nothing to change/);
    expect(parseEditOptions("cmp_1", { stopOnAutoReply: false })).toMatchObject({ id: "cmp_1", stopOnAutoReply: false });
    expect(usageError(() => parseOpenersOptions("cmp_1", { set: "ct_1" })).message).toBe("--set needs --text with the opener");
    expect(usageError(() => parseOpenersOptions("cmp_1", { tags: "cafes" })).message).toBe("--tags goes with --generate");
    expect(parseOpenersOptions("cmp_1", { generate: true, tags: "a, b" })).toEqual({ id: "cmp_1", json: undefined, action: "generate", tags: ["a", "b"] });
    expect(usageError(() => parseUnconfirmedOptions("cmp_1", ["exe_1"], {})).message).toBe("execution ids are resolved with --resend or --confirm");
  });

  it("brand set: --clear of a field given alongside is a contradiction", () => {
    expect(usageError(() => parseBrandSetOptions({ clear: ["name"], name: "Acme" })).message).toBe("--clear name contradicts --name");
    expect(usageError(() => parseBrandSetOptions({ clear: ["design-system"], designSystem: "brand.json" })).message).toBe("--clear design-system contradicts --design-system");
    expect(parseBrandSetOptions({ clear: ["logo-url"], postalAddress: "A\\nB" }).update).toEqual({ logoUrl: null, postalAddress: "A\nB" });
  });
});

describe("a usage error opens nothing", () => {
  it("the data directory named is not created when the flags are refused", async () => {
    const dataDir = join(tempDir(), "never-made");
    const env = { ...cliEnv(), OUTREACH_DATA_DIR: dataDir };
    for (const argv of [
      ["leads", "search", "--keywords", "dentist", "--location", "Vaduz", "--pages", "2", "--all"],
      ["contacts", "import", "people.csv", "--encoding", "klingon-8"],
      ["contacts", "list", "--all", "--page", "2"],
      ["admin", "plans", "set", "free", "--daily-searches", "lots"],
    ]) {
      const out = await runCli(argv, { env });
      expect(out.code, argv.join(" ")).toBe(EXIT.usage);
      expect(existsSync(dataDir), argv.join(" ")).toBe(false);
    }
  });
});
