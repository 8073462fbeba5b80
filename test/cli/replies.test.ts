import { describe, expect, it } from "vitest";
import { Keyring } from "../../src/core/crypto.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { appendMessages, mail, testDovecot } from "../helpers/mailbox.js";
import { sentCampaign } from "../helpers/replies.js";

describe("outreach replies sync, campaigns replies, and the key rotation of replies", () => {
  it("syncs through the CLI, lists the replies (table and --json), and re-keys them with admin keys rotate", async () => {
    const c = await sentCampaign([
      { email: "rosa@praxis-rosa.test", name: "Rosa" },
      { email: "sven@praxis-sven.test", name: "Sven" },
    ]);
    const dovecot = await testDovecot();
    await appendMessages(dovecot, [
      mail({ From: "Rosa <rosa@praxis-rosa.test>", To: "hello@acme-dental.test", Subject: "Re: Hello Rosa", "In-Reply-To": c.messageId["rosa@praxis-rosa.test"] }, "Gerne!\n\n> Dear Rosa"),
      mail({ From: "sven@praxis-sven.test", To: "hello@acme-dental.test", Subject: "SV: Hello Sven", "Auto-Submitted": "auto-replied" }, "Jeg er på ferie."),
      mail({ From: "stranger@nowhere.test", To: "hello@acme-dental.test", Subject: "Hi" }, "?"),
    ]);
    const instance = c.setup.instance;
    const env = cliEnv({ OUTREACH_IMAP_URL: dovecot.url() });
    const deps = { clock: instance.clock, serverConfig: { ...instance.services.deps.config, imap: undefined } };
    const cli = (...argv: string[]) => runCli(["--data-dir", instance.services.deps.dataDir, "--token", instance.token, ...argv], { env, deps });
    const tty = (...argv: string[]) => runCli(["--data-dir", instance.services.deps.dataDir, "--token", instance.token, ...argv], { env, deps, tty: true, columns: 200 });

    // Without OUTREACH_IMAP_URL: a 409 that says what to set.
    const unset = await runCli(["--data-dir", instance.services.deps.dataDir, "replies", "sync"], { env: cliEnv(), deps });
    expect(unset.code).toBe(5);
    expect(unset.stderr).toContain("OUTREACH_IMAP_URL is not set");

    const synced = await runCli(["--data-dir", instance.services.deps.dataDir, "replies", "sync"], { env, deps: { clock: instance.clock } });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout.trim()).toBe("3 message(s) read: 1 reply, 1 auto-reply, 0 bounce(s), 1 unmatched, 0 our own");

    // Piped: TSV, one reply a line (both arrived at the same second here).
    const tsv = await cli("campaigns", "replies", c.campaignId);
    expect(tsv.stdout.trim().split("\n").map((l) => l.split("\t").slice(3, 7)).sort()).toEqual([
      ["rosa@praxis-rosa.test", "", "Re: Hello Rosa", "Gerne!"],
      ["sven@praxis-sven.test", "auto-reply", "SV: Hello Sven", "Jeg er på ferie."],
    ]);
    const table = await tty("campaigns", "replies", c.campaignId);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines.find((l) => /RECEIVED/.test(l))).toMatch(/RECEIVED\W+CONTACT\W+STEP\W+FROM\W+AUTO\W+SUBJECT\W+SNIPPET/);
    expect(table.stdout).toMatch(/rosa@praxis-rosa\.test\W+Re: Hello Rosa\W+Gerne!/);
    expect(table.stdout).toMatch(/sven@praxis-sven\.test\W+auto-reply\W+SV: Hello Sven\W+Jeg er på ferie\./);
    const json = JSON.parse((await cli("campaigns", "replies", c.campaignId, "--json", "--limit", "1")).stdout) as { replies: unknown[]; total: number; totalPages: number };
    expect(json).toMatchObject({ total: 2, totalPages: 2, page: 1, limit: 1 });
    expect(json.replies).toHaveLength(1);
    expect((await cli("campaigns", "replies", "cmp_doesnotexist0000")).code).toBe(3);

    // The key rotation re-encrypts the replies' sender, subject and snippet.
    const oldKey = instance.services.keys.get().currentId;
    const rotated = await runCli(["--data-dir", instance.services.deps.dataDir, "admin", "keys", "rotate"], { env: cliEnv(), deps: { clock: instance.clock } });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toMatch(/campaign replies: 2/);
    const newKey = rotated.stdout.trim();
    expect(newKey).not.toBe(oldKey);
    const rows = instance.services.deps.db.prepare("SELECT key_id, from_ct, subject_ct, snippet_ct FROM campaign_replies").all() as Array<Record<string, string>>;
    for (const row of rows) {
      expect(row.key_id).toBe(newKey);
      for (const col of ["from_ct", "subject_ct", "snippet_ct"]) expect(Keyring.keyIdOfCiphertext(row[col]!)).toBe(newKey);
    }
    const after = JSON.parse((await cli("campaigns", "replies", c.campaignId, "--json")).stdout) as { replies: Array<{ from: string; snippet: string }> };
    expect(after.replies.map((r) => r.from).sort()).toEqual(["rosa@praxis-rosa.test", "sven@praxis-sven.test"]);
  });
});
