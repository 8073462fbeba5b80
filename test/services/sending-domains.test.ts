import { describe, expect, it } from "vitest";
import { addKeyToKeyFile, retireOldKeys } from "../../src/core/crypto.js";
import { isAppError } from "../../src/core/errors.js";
import { loadServerConfig } from "../../src/services/config.js";
import { openInstance } from "../../src/services/instance.js";
import { SENDING_DOMAIN_ENCRYPTED_COLUMNS } from "../../src/store/sending-domains.js";
import { createTestInstance } from "../helpers/instance.js";

const body = { domain: "example.com", senderEmail: "a@example.com", senderName: "Acme" };

function principalOf(instance: ReturnType<typeof createTestInstance>) {
  return instance.services.auth.authenticate(`Bearer ${instance.token}`);
}

describe("SendingDomainService", () => {
  it("lets exactly one of two concurrent adds of the same domain win; the other is a 409", async () => {
    const instance = createTestInstance();
    const principal = principalOf(instance);
    const results = await Promise.allSettled([
      instance.services.sendingDomains.add(principal, instance.teamId, body),
      instance.services.sendingDomains.add(principal, instance.teamId, { ...body, domain: "EXAMPLE.com." }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(isAppError(rejected.reason) && rejected.reason.status).toBe(409);
    expect(instance.services.sendingDomains.list(principal, instance.teamId).domains).toHaveLength(1);
  });

  it("re-encrypts the DKIM key through its encrypted-column descriptor during a master-key rotation", async () => {
    const instance = createTestInstance();
    const principal = principalOf(instance);
    await instance.services.sendingDomains.add(principal, instance.teamId, body);
    const [domain] = instance.services.sendingDomains.list(principal, instance.teamId).domains;
    const before = instance.services.sendingDomains.dkimSigningKey(instance.teamId, domain!.id).privateKeyPem;
    instance.close();

    const d = SENDING_DOMAIN_ENCRYPTED_COLUMNS;
    addKeyToKeyFile(instance.dataDir);
    const rotating = openInstance({ dataDir: instance.dataDir, env: {} });
    const { db, keyring } = rotating.services.deps;
    const rows = db.prepare(`SELECT ${[d.idColumn, ...d.aadColumns, ...d.columns].join(", ")} FROM ${d.table}`).all() as Array<Record<string, string>>;
    for (const row of rows) {
      for (const column of d.columns) {
        // The Ed25519 key is null until a domain opts in.
        if (row[column] === null) continue;
        const plain = keyring.decrypt(row[column]!, d.aad(row as { team_id: string; id: string }, column));
        const again = keyring.encrypt(plain, d.aad(row as { team_id: string; id: string }, column));
        db.prepare(`UPDATE ${d.table} SET ${column} = ?, ${d.keyIdColumn} = ? WHERE ${d.idColumn} = ?`).run(again, keyring.currentId, row[d.idColumn]);
      }
    }
    rotating.close();
    retireOldKeys(instance.dataDir);

    const after = openInstance({ dataDir: instance.dataDir, env: {} });
    try {
      expect(after.services.sendingDomains.dkimSigningKey(instance.teamId, domain!.id).privateKeyPem).toBe(before);
    } finally {
      after.close();
    }
  });
});

describe("sending-domain settings", () => {
  it("reads DNS servers, timeouts, the verify interval and the SPF include, naming the variable when one is wrong", () => {
    const config = loadServerConfig({
      OUTREACH_DNS_SERVERS: "127.0.0.1:5353, [::1]:53, 1.1.1.1",
      OUTREACH_DNS_TIMEOUT_MS: "300",
      OUTREACH_BOUNCE_HOST: "Bounces.Mailer.Example.",
    });
    expect(config).toMatchObject({
      dnsServers: ["127.0.0.1:5353", "[::1]:53", "1.1.1.1"],
      dnsTimeoutMs: 300,
      dnsTries: 2,
      domainVerifyIntervalSeconds: 10,
      bounceHost: "bounces.mailer.example",
      spfInclude: "_spf.bounces.mailer.example",
    });
    expect(() => loadServerConfig({ OUTREACH_DNS_SERVERS: "dns.google" })).toThrow(/OUTREACH_DNS_SERVERS: "dns.google" is not an IP address/);
    expect(() => loadServerConfig({ OUTREACH_DNS_SERVERS: "127.0.0.1:99999" })).toThrow(/OUTREACH_DNS_SERVERS/);
    expect(() => loadServerConfig({ OUTREACH_DOMAIN_VERIFY_INTERVAL: "-1" })).toThrow(/OUTREACH_DOMAIN_VERIFY_INTERVAL must be an integer/);
    expect(() => loadServerConfig({ OUTREACH_BOUNCE_HOST: "not a host" })).toThrow(/OUTREACH_BOUNCE_HOST must be a host name/);
  });
});
