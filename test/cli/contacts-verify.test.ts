import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { startDnsServer } from "../helpers/dns-server.js";
import { startMailboxServers } from "../helpers/mailbox-servers.js";

/** A local data directory whose resolver is the test's DNS server and whose probe reaches the test's SMTP servers. */
async function local(extraEnv: NodeJS.ProcessEnv = {}) {
  const { port, servers } = await startMailboxServers([{ behaviour: "strict", mailboxes: ["anna@strict.test"] }, { behaviour: "tarpit" }]);
  const dns = await startDnsServer({
    mx: {
      "strict.test": [{ exchange: "mx.strict.test", priority: 10 }],
      "tarpit.test": [{ exchange: "mx.tarpit.test", priority: 10 }],
      "gone.test": [{ exchange: ".", priority: 0 }],
    },
    a: { "mx.strict.test": ["127.0.0.2"], "mx.tarpit.test": ["127.0.0.3"] },
  });
  const dataDir = tempDir();
  const env = cliEnv({
    OUTREACH_DNS_SERVERS: dns.address,
    OUTREACH_VERIFY_SMTP: "1",
    OUTREACH_VERIFY_SMTP_PORT: String(port),
    OUTREACH_VERIFY_SMTP_ALLOW: "127.0.0.0/8",
    OUTREACH_HELO_NAME: "probe.outreach.test",
    ...extraEnv,
  });
  const cli = (args: string[], options: { tty?: boolean; signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {}) =>
    runCli(["--data-dir", dataDir, ...args], { ...options, env: { ...env, ...options.env } });
  expect((await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"])).code).toBe(0);
  const add = async (email: string) => {
    const added = await cli(["contacts", "add", "--email", email, "--name", email.split("@")[0]!, "--json"]);
    expect(added.code).toBe(0);
    return (JSON.parse(added.stdout) as { contact: { id: string } }).contact.id;
  };
  return { cli, add, servers };
}

describe("outreach contacts verify", () => {
  it("verifies every contact, shows the result and filters the list by it", async () => {
    const { cli, add, servers } = await local();
    const anna = await add("anna@strict.test");
    const nobody = await add("nobody@strict.test");
    const gone = await add("x@gone.test");
    const run = await cli(["contacts", "verify", "--all"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("verified 3: 1 deliverable, 2 undeliverable, 0 risky, 0 unknown\n");
    const shown = await cli(["contacts", "show", anna]);
    expect(shown.stdout).toMatch(/verification\s+deliverable \(the mail server accepted the address/);
    const listed = await cli(["contacts", "list", "--verification", "undeliverable", "--json"]);
    expect((JSON.parse(listed.stdout) as { contacts: Array<{ id: string }> }).contacts.map((c) => c.id).sort()).toEqual([nobody, gone].sort());
    const bad = await cli(["contacts", "list", "--verification", "maybe"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--verification");
    expect(servers[0]!.sessions.every((s) => !s.data && s.ehlo === "probe.outreach.test")).toBe(true);
  });

  it("needs ids or --all, not both", async () => {
    const { cli, add } = await local();
    const id = await add("anna@strict.test");
    expect((await cli(["contacts", "verify"])).code).toBe(2);
    expect((await cli(["contacts", "verify", "--all", id])).code).toBe(2);
    const unknown = await cli(["contacts", "verify", "ct_AAAAAAAAAAAAAAAA"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("contact ct_AAAAAAAAAAAAAAAA not found");
  });

  it("Ctrl-C ends with exit 130; what was verified stays, and the next --all run continues with the rest", async () => {
    const { cli, add } = await local({ OUTREACH_VERIFY_SMTP_TIMEOUT_MS: "60000" });
    const gone = await add("x@gone.test");
    const stuck = await add("y@tarpit.test");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    const interrupted = await cli(["contacts", "verify", "--all"], { tty: true, signal: controller.signal });
    expect(interrupted.code, interrupted.stderr).toBe(130);
    const show = async (id: string) => JSON.parse((await cli(["contacts", "show", id, "--json"])).stdout).contact.verification;
    expect((await show(gone)).status).toBe("undeliverable");
    expect(await show(stuck)).toBeNull();
    // The run is continued, not restarted: only the contact left is checked (the probe off this time).
    const resumed = await cli(["contacts", "verify", "--all", "--json"], { env: { OUTREACH_VERIFY_SMTP: "0" } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ checked: 1, byStatus: { deliverable: 0, undeliverable: 0, risky: 0, unknown: 1 } });
    expect((await show(stuck)).reason).toMatch(/^mailbox not checked/);
    // That run finished: the next one checks everything again.
    const again = await cli(["contacts", "verify", "--all", "--json"], { env: { OUTREACH_VERIFY_SMTP: "0" } });
    expect(JSON.parse(again.stdout).checked).toBe(2);
  }, 20_000);
});
