import { describe, expect, it } from "vitest";
import type { DnsAnswer } from "../../src/providers/dns/resolver.js";
import {
  applyOutcome,
  checkDkim,
  checkReturnPath,
  checkSpf,
  domainStatus,
  parseTags,
  plannedRecords,
  summariseErrors,
} from "../../src/services/sending/domain-records.js";

const records = plannedRecords({
  domain: "example.com",
  ownershipToken: "tok123",
  dkimSelector: "outreach20261122",
  dkimPublicKey: "MIIBkey+/=",
  returnPathTarget: "bounces.mailer.test",
  spfInclude: "_spf.mailer.test",
});
const [ownership, dkim, returnPath, spf] = records as [any, any, any, any];
const found = (...r: string[]): DnsAnswer<string> => ({ kind: "found", records: r });

describe("record checks", () => {
  it("parses tag lists case-insensitively, keeping the first of a repeated tag", () => {
    expect([...parseTags(" V=DKIM1 ; k=rsa;p=abc ; p=def; junk")]).toEqual([
      ["v", "DKIM1"],
      ["k", "rsa"],
      ["p", "abc"],
    ]);
  });

  it("refuses a revoked DKIM key (empty p=) and another key type", () => {
    expect(checkDkim(found("v=DKIM1; p="), dkim).error).toMatch(/revoked/);
    expect(checkDkim(found("v=DKIM1; k=ed25519; p=MIIBkey+/="), dkim).error).toMatch(/k=ed25519/);
    expect(checkDkim(found("v=DKIM1; p=MIIBkey+/="), dkim).status).toBe("verified");
  });

  it("ignores unrelated TXT records beside the DKIM record", () => {
    expect(checkDkim(found("some verification", "v=DKIM1; k=rsa; p=MIIBkey+/="), dkim).status).toBe("verified");
  });

  it("compares CNAME targets case-insensitively", () => {
    expect(checkReturnPath(found("bounces.mailer.test"), { ...returnPath, value: "Bounces.Mailer.Test" }).status).toBe("verified");
  });

  it("accepts the SPF include with a qualifier, and names what is missing otherwise", () => {
    expect(checkSpf(found("v=spf1 mx +include:_spf.mailer.test -all"), spf, "_spf.mailer.test").status).toBe("verified");
    expect(checkSpf(found("v=spf1 include:_spf.other.test ~all"), spf, "_spf.mailer.test").error).toMatch(/does not include include:_spf\.mailer\.test/);
    expect(checkSpf(found("v=spf10 nonsense"), spf, "_spf.mailer.test").error).toMatch(/no SPF record at example\.com/);
  });
});

describe("applyOutcome and domain status", () => {
  it("never downgrades a verified record on a temporary failure, but does on a definite one", () => {
    const verified = { ...dkim, status: "verified", found: ["v=DKIM1; p=MIIBkey+/="] };
    expect(applyOutcome(verified, { status: "temporary_failure", found: null, error: "temporary DNS failure: x" })).toBe(verified);
    expect(applyOutcome(verified, { status: "failed", found: [], error: "no DKIM record" })).toMatchObject({ status: "failed", found: [] });
    expect(applyOutcome(dkim, { status: "temporary_failure", found: null, error: "temporary DNS failure: x" })).toMatchObject({
      status: "temporary_failure",
      found: null,
    });
  });

  it("is verified only when every required record is, failed when one failed, pending otherwise; advisory records do not count", () => {
    const all = (status: string) => records.map((r) => ({ ...r, status }) as any);
    expect(domainStatus(all("verified"))).toBe("verified");
    expect(domainStatus(all("verified").map((r: any) => (r.required ? r : { ...r, status: "failed" })))).toBe("verified");
    expect(domainStatus(all("temporary_failure"))).toBe("pending");
    const mixed = all("verified");
    mixed[2] = { ...mixed[2], status: "failed", error: "bad" };
    mixed[1] = { ...mixed[1], status: "temporary_failure", error: "t" };
    expect(domainStatus(mixed)).toBe("failed");
    expect(summariseErrors(mixed, [])).toBe("DKIM: t");
    expect(summariseErrors(all("verified"), ["SERVFAIL for x"])).toMatch(/^temporary DNS failure \(SERVFAIL for x\)/);
    expect(summariseErrors(all("verified"), [])).toBeNull();
    expect(ownership.value).toBe("outreach-verification=tok123");
  });
});
