import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Keyring } from "../../src/core/crypto.js";
import { openInstance } from "../../src/services/instance.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

describe("outreach admin keys rotate across features", () => {
  it("re-encrypts sending domains' DKIM keys together with contacts, and they still sign afterwards", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const cli = (...args: string[]) => runCli(["--data-dir", dataDir, ...args], { env });
    expect((await cli("init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme")).code).toBe(0);
    expect((await cli("contacts", "add", "--email", "bob@example.org", "--name", "Bob")).code).toBe(0);
    const added = await cli("domains", "add", "mail.example.org", "--sender-email", "ada@mail.example.org", "--sender-name", "Ada", "--json");
    expect(added.code).toBe(0);
    const oldKeyId = JSON.parse(readFileSync(join(dataDir, "secret.key"), "utf8")).current as string;

    const rotated = await cli("admin", "keys", "rotate");
    expect(rotated.code).toBe(0);
    expect(rotated.stderr).toMatch(/2 rows to re-encrypt \(contacts: 1, sending domain DKIM keys: 1, email suppressions: 0, instance secrets: 0, campaign replies: 0, contact openers: 0\)/);
    const newKeyId = rotated.stdout.trim();
    expect(newKeyId).not.toBe(oldKeyId);

    const instance = openInstance({ dataDir, env });
    try {
      const { db } = instance.services.deps;
      const row = db.prepare("SELECT id, team_id, key_id, dkim_private_key_ct FROM sending_domains").get() as Record<string, string>;
      expect(row.key_id).toBe(newKeyId);
      expect(Keyring.keyIdOfCiphertext(row.dkim_private_key_ct!)).toBe(newKeyId);
      const key = instance.services.sendingDomains.dkimSigningKey(row.team_id!, row.id!);
      expect(key.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      expect(instance.services.keys.get().keyIds).toEqual([newKeyId]);
    } finally {
      instance.close();
    }
    const list = await cli("contacts", "list", "--json");
    expect(JSON.parse(list.stdout).contacts[0].email).toBe("bob@example.org");
  });
});
