import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { Resolver } from "node:dns/promises";
import { describe, expect, it } from "vitest";
import type { SendingDomain } from "../../src/core/schemas/sending-domain.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { startDnsServer } from "../helpers/dns-server.js";
import { deliveryStatusNotification, sendRaw } from "../helpers/dsn.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";
import { correctZone } from "../helpers/sending-domains.js";
import { headerOf, startSmtpSink } from "../helpers/smtp-sink.js";

/** Poll `check` until it holds (the server delivers on its own schedule); fails after `limitMs`. */
async function eventually<T>(check: () => T | undefined | false, what: string, limitMs = 20_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("outreach serve delivers", () => {
  it("a campaign to contacts arrives signed and unsubscribable at a real SMTP server; bounces and unsubscribes feed back", { timeout: 60_000 }, async () => {
    const sink = await startSmtpSink();
    const dns = await startDnsServer();
    const env = cliEnv({
      OUTREACH_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      OUTREACH_PUBLIC_URL: "https://outreach.acme-dental.test",
      OUTREACH_DNS_SERVERS: dns.address,
      OUTREACH_SEND_PER_MINUTE: "0",
    });
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const { token } = JSON.parse(init.stdout) as { token: string };
    const serve = await spawnServe(dataDir, env, ["--smtp-port", "0"]);
    const bouncePort = Number((await eventually(() => /bounce listener on smtp:\/\/127\.0\.0\.1:(\d+)/.exec(serve.stderr()), "the bounce listener"))[1]);
    // The remote CLI in-process (the server is the built binary): as fast as a request.
    const cli = async (...args: string[]) => {
      const result = await runCli(["--base-url", serve.url, "--token", token, ...args], { env: cliEnv() });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };

    const domain = JSON.parse(await cli("domains", "add", "acme-dental.test", "--sender-email", "hello@acme-dental.test", "--sender-name", "Acme Dental", "--json")) as SendingDomain;
    dns.zone = correctZone(domain);
    await cli("domains", "verify", "acme-dental.test");
    await cli("brand", "set", "--name", "Acme Dental", "--postal-address", "12 Main Street\\nSpringfield, IL 62701");
    const bea = (await cli("contacts", "add", "--email", "bea@clinic-one.test", "--name", "Bea", "--tag", "dentist")).trim();
    const carl = (await cli("contacts", "add", "--email", "carl@clinic-two.test", "--name", "Carl", "--tag", "dentist")).trim();
    const body = join(tempDir(), "body.md");
    writeFileSync(body, "Hello {{ contact.name }},\n\nour new practice opens on Monday.\n");
    const created = JSON.parse(await cli("campaigns", "create", "--type", "one-time", "--name", "Opening", "--subject", "Hi {{ contact.name }}", "--body-file", body, "--json"));
    const campaignId = created.campaign.id as string;
    await cli("campaigns", "launch", campaignId, "--tags", "dentist");

    await eventually(() => sink.received.length === 2, "two messages at the SMTP server");
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    for (const message of sink.received) {
      // The product's own 2048-bit key, verified against the record published in DNS.
      const verified = await dkimVerify(message.raw, { resolver: ((name: string, type: string) => resolver.resolve(name, type as "TXT")) as never });
      expect((verified.results[0] as { status: { result: string } }).status.result).toBe("pass");
      expect(headerOf(message.raw, "List-Unsubscribe")).toMatch(/^<https:\/\/outreach\.acme-dental\.test\/u\/[\w-]+>$/);
      expect(message.mailFrom).toMatch(/^bounce\+exe_\w+@bounce\.acme-dental\.test$/);
    }
    const executions = JSON.parse(await cli("campaigns", "executions", campaignId, "--json")).executions as Array<{ id: string; contactId: string; status: string }>;
    await eventually(() => serve.stderr().includes("(campaign " + campaignId + ")") && executions.length === 2, "delivery log lines");
    for (const e of executions) expect(serve.stderr()).toMatch(new RegExp(`delivery ${e.id} \\(campaign ${campaignId}\\) attempt 1: sent`));

    // Bea's server bounces it back to the VERP address.
    const toBea = sink.received.find((m) => m.rcptTo[0] === "bea@clinic-one.test")!;
    await sendRaw(bouncePort, toBea.mailFrom, deliveryStatusNotification({ to: toBea.mailFrom, recipient: "bea@clinic-one.test", status: "5.1.1", diagnostic: "550 5.1.1 no such user" }));
    expect(JSON.parse(await cli("contacts", "show", bea, "--json"))).toMatchObject({ contact: { status: "bounced" } });

    // Carl's mail client posts the one-click unsubscribe.
    const toCarl = sink.received.find((m) => m.rcptTo[0] === "carl@clinic-two.test")!;
    const path = new URL(headerOf(toCarl.raw, "List-Unsubscribe")!.slice(1, -1)).pathname;
    const unsubscribed = await fetch(serve.url + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(unsubscribed.status).toBe(200);
    expect(JSON.parse(await cli("contacts", "show", carl, "--json"))).toMatchObject({ contact: { status: "unsubscribed" } });

    const show = await cli("campaigns", "show", campaignId);
    expect(show).toContain("status\tsent\n");
    expect(show).toContain("executions: sent 1, bounced 1\n");

    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
  });
});
