import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { openInstance } from "../../src/services/instance.js";
import { BIN, builtBin } from "../helpers/built-bin.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { startDnsServer } from "../helpers/dns-server.js";
import { startMailboxServers } from "../helpers/mailbox-servers.js";

/**
 * `outreach contacts verify --all` (the built binary) killed with SIGKILL mid-run: every
 * contact is either fully verified or untouched, and the next run continues with the rest.
 */
describe("a verification run killed mid-way", () => {
  it("leaves no contact half-written and is continued by the next run", { timeout: 90_000 }, async () => {
    await builtBin();
    const mailboxes = Array.from({ length: 100 }, (_, i) => [`u${i}@a.test`, `u${i}@b.test`]).flat();
    const { port, servers } = await startMailboxServers([{ behaviour: "strict", mailboxes }, { behaviour: "strict", mailboxes }]);
    for (const s of servers) s.latencyMs = 15;
    const dns = await startDnsServer({
      mx: { "a.test": [{ exchange: "mx.a.test", priority: 10 }], "b.test": [{ exchange: "mx.b.test", priority: 10 }], "gone.test": [{ exchange: ".", priority: 0 }] },
      a: { "mx.a.test": ["127.0.0.2"], "mx.b.test": ["127.0.0.3"] },
    });
    const dataDir = tempDir();
    const env = cliEnv({
      OUTREACH_DATA_DIR: dataDir,
      OUTREACH_DNS_SERVERS: dns.address,
      OUTREACH_VERIFY_SMTP: "1",
      OUTREACH_VERIFY_SMTP_PORT: String(port),
      OUTREACH_VERIFY_SMTP_ALLOW: "127.0.0.0/8",
      OUTREACH_HELO_NAME: "probe.outreach.test",
    });
    expect((await runCli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"], { env })).code).toBe(0);
    const instance = openInstance({ dataDir, env });
    const teamId = instance.services.deps.db.prepare("SELECT id FROM teams LIMIT 1").pluck().get() as string;
    const emails = [...Array.from({ length: 150 }, (_, i) => `u${i}@a.test`), ...Array.from({ length: 150 }, (_, i) => `u${i}@b.test`), ...Array.from({ length: 100 }, (_, i) => `g${i}@gone.test`)];
    await instance.services.contacts.addMany(teamId, emails.map((email) => ({ email, name: email })));
    const verifiedCount = () => instance.services.deps.db.prepare("SELECT COUNT(*) FROM contacts WHERE verification IS NOT NULL").pluck().get() as number;

    const child = spawn(process.execPath, [BIN, "contacts", "verify", "--all"], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
    // Killed once some contacts are written and while probes are still in flight.
    for (let i = 0; i < 2000 && verifiedCount() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    expect(await ended).toBe("SIGKILL");
    const done = verifiedCount();
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(emails.length);

    // Every row is whole: no verification without its status and time, or the reverse.
    const rows = instance.services.deps.db.prepare("SELECT verification, verification_status, verified_at FROM contacts").all() as Array<{ verification: string | null; verification_status: string | null; verified_at: string | null }>;
    for (const row of rows) {
      if (row.verification === null) expect([row.verification_status, row.verified_at]).toEqual([null, null]);
      else expect(JSON.parse(row.verification)).toMatchObject({ status: row.verification_status, checkedAt: row.verified_at });
    }

    const resumed = await runCli(["contacts", "verify", "--all", "--json"], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).checked).toBe(emails.length - done);
    expect(verifiedCount()).toBe(emails.length);
    const tally = instance.services.deps.db.prepare("SELECT verification_status, COUNT(*) AS n FROM contacts GROUP BY 1 ORDER BY 1").all();
    expect(tally).toEqual([
      { verification_status: "deliverable", n: 200 },
      { verification_status: "undeliverable", n: 200 },
    ]);
    for (const s of servers) for (const session of s.sessions) expect(session.data).toBe(false);
    instance.close();
  });
});
