import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { describe, expect, it } from "vitest";
import { addKeyToKeyFile, retireOldKeys } from "../../src/core/crypto.js";
import { openInstance } from "../../src/services/instance.js";
import { sendingSetup } from "../helpers/sending.js";

type Verdict = { status: { result: string; comment?: string }; algo: string; selector: string; signingDomain: string };

/** mailauth's verdicts on the received bytes, its resolver asking the test DNS server the domain was verified against. */
async function verdicts(raw: Buffer, resolver: (name: string, type: string) => Promise<unknown>): Promise<Verdict[]> {
  return (await dkimVerify(raw, { resolver: resolver as never })).results as Verdict[];
}

describe("Ed25519-SHA256 DKIM (RFC 8463) beside RSA", () => {
  it("a domain that opted in publishes both records, verifies both, and every message carries two signatures that pass", async () => {
    const setup = await sendingSetup({ dkimEd25519: true });
    const records = setup.domain.dnsRecords;
    const ed = records.find((r) => r.purpose === "dkim_ed25519")!;
    const rsa = records.find((r) => r.purpose === "dkim")!;
    expect(ed).toMatchObject({ type: "TXT", required: false, status: "verified" });
    expect(ed.value).toMatch(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    expect(ed.host).not.toBe(rsa.host);
    expect(setup.domain).toMatchObject({ dkimVerified: true, dkimEd25519: true, dkimEd25519Verified: true });

    setup.addContact("ann@clinic-one.test", { name: "Ann" });
    setup.addContact("bob@clinic-two.test", { name: "Bob" });
    await setup.launchOneTime();
    const result = await setup.delivery().runUntilEmpty();
    expect(result.sent).toBe(2);
    expect(setup.sink.received).toHaveLength(2);
    for (const message of setup.sink.received) {
      const results = await verdicts(message.raw, setup.resolver);
      expect(results.map((r) => [r.algo, r.status.result, r.signingDomain]).sort()).toEqual([
        ["ed25519-sha256", "pass", "acme-dental.test"],
        ["rsa-sha256", "pass", "acme-dental.test"],
      ]);
      expect(results.find((r) => r.algo === "ed25519-sha256")!.selector).toBe(ed.host.split("._domainkey")[0]);
    }

    // Tampering breaks both: the verifier really checks the Ed25519 signature.
    const tampered = Buffer.from(setup.sink.received[0]!.raw.toString("latin1").replace("Subject: Hello", "Subject: Hullo"), "latin1");
    expect((await verdicts(tampered, setup.resolver)).map((r) => r.status.result)).toEqual(["fail", "fail"]);
  });

  it("signs with Ed25519 only once its record is verified; a domain that did not opt in has one RSA signature", async () => {
    const setup = await sendingSetup({ dkimEd25519: true });
    const { services } = setup.instance;
    // The Ed25519 record gone from DNS: the next check fails it, RSA still verifies the domain.
    const ed = setup.domain.dnsRecords.find((r) => r.purpose === "dkim_ed25519")!;
    delete setup.dns.zone.txt![ed.host];
    await services.sendingDomains.verify(setup.principal, setup.domain.id);
    const after = services.sendingDomains.list(setup.principal, setup.instance.teamId).domains[0]!;
    expect(after).toMatchObject({ status: "verified", dkimEd25519: true, dkimEd25519Verified: false });
    expect(after.dnsRecords.find((r) => r.purpose === "dkim_ed25519")!.error).toMatch(/no DKIM record at/);
    setup.addContact("ann@clinic-one.test", { name: "Ann" });
    await setup.launchOneTime();
    await setup.delivery().runUntilEmpty();
    const results = await verdicts(setup.sink.received[0]!.raw, setup.resolver);
    expect(results.map((r) => [r.algo, r.status.result])).toEqual([["rsa-sha256", "pass"]]);

    const plain = await sendingSetup();
    expect(plain.domain).toMatchObject({ dkimEd25519: false, dkimEd25519Verified: false });
    expect(plain.domain.dnsRecords.some((r) => r.purpose === "dkim_ed25519")).toBe(false);
  });

  it("keeps the Ed25519 key encrypted at rest and re-encrypts it with the RSA key in a master-key rotation", async () => {
    const setup = await sendingSetup({ dkimEd25519: true });
    const { instance } = setup;
    const db = instance.services.deps.db;
    const row = db.prepare("SELECT dkim_ed25519_private_key_ct AS ct, key_id FROM sending_domains").get() as { ct: string; key_id: string };
    expect(row.ct).not.toMatch(/PRIVATE KEY/);
    const before = instance.services.sendingDomains.dkimSigningKey(instance.teamId, setup.domain.id);
    expect(before.ed25519?.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    instance.close();

    addKeyToKeyFile(instance.dataDir);
    const rotating = openInstance({ dataDir: instance.dataDir, env: {} });
    const rotation = await rotating.services.keyRotation.reencryptAll(() => rotating.services.keys.get());
    expect(rotation.remaining).toBe(0);
    const rotated = rotating.services.deps.db.prepare("SELECT dkim_ed25519_private_key_ct AS ct, key_id FROM sending_domains").get() as { ct: string; key_id: string };
    expect(rotated.key_id).not.toBe(row.key_id);
    expect(rotated.ct).not.toBe(row.ct);
    rotating.close();
    retireOldKeys(instance.dataDir);

    const after = openInstance({ dataDir: instance.dataDir, env: {} });
    try {
      const key = after.services.sendingDomains.dkimSigningKey(instance.teamId, setup.domain.id);
      expect(key.ed25519).toEqual(before.ed25519);
      expect(key.privateKeyPem).toBe(before.privateKeyPem);
    } finally {
      after.close();
    }
  });
});
