import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContactOpenerStore } from "../../src/services/contacts/contact-openers.js";
import { openInstance } from "../../src/services/instance.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

describe("outreach admin keys rotate with AI openers", () => {
  it("re-encrypts the openers under the new key, and they still read", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const cli = (...args: string[]) => runCli(["--data-dir", dataDir, ...args], { env });
    expect((await cli("init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme")).code).toBe(0);
    expect((await cli("contacts", "add", "--email", "bob@example.org", "--name", "Bob")).code).toBe(0);
    const oldKeyId = JSON.parse(readFileSync(join(dataDir, "secret.key"), "utf8")).current as string;
    let ids: { campaign: string; contact: string; team: string };
    {
      const instance = openInstance({ dataDir, env });
      try {
        const { services } = instance;
        const owner = services.identity.users.byEmail("ada@example.com")!;
        const principal = services.auth.authenticate(`Bearer ${services.identity.issuePersonalToken(owner.id, "t").raw}`);
        const team = principal.teamId;
        const contact = services.contacts.list(team, { page: 1, limit: 1 }).contacts[0]!.id;
        const campaign = await services.campaigns.create(principal, { name: "n", type: "one-time", subject: "s", bodyMarkdown: "{{ contact.opener }}" });
        services.openers.set(principal, campaign.id, contact, "Your bakery smells wonderful.");
        ids = { campaign: campaign.id, contact, team };
      } finally {
        instance.close();
      }
    }
    const rotated = await cli("admin", "keys", "rotate");
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toMatch(/contact openers: 1\)/);
    const newKeyId = rotated.stdout.trim();
    expect(newKeyId).not.toBe(oldKeyId);
    const instance = openInstance({ dataDir, env });
    try {
      const row = instance.services.deps.db.prepare("SELECT key_id FROM contact_openers").get() as { key_id: string };
      expect(row.key_id).toBe(newKeyId);
      const { openers } = new ContactOpenerStore({ db: instance.services.deps.db, keys: instance.services.keys }).page(ids.team, ids.campaign, 10, 0);
      expect(openers).toMatchObject([{ contactId: ids.contact, opener: "Your bakery smells wonderful.", source: "user" }]);
    } finally {
      instance.close();
    }
  });
});
