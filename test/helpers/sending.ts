import { Resolver } from "node:dns/promises";
import { afterEach } from "vitest";
import { SmtpRelay } from "../../src/providers/smtp/relay.js";
import type { Principal } from "../../src/services/access/auth.js";
import type { ServerConfig } from "../../src/services/config.js";
import type { DeliveryHooks, DeliveryService } from "../../src/services/sending/delivery.js";
import { createDelivery } from "../../src/services/index.js";
import type { CreateCampaignBody } from "../../src/core/schemas/campaign.js";
import type { SendingDomain } from "../../src/core/schemas/sending-domain.js";
import { startDnsServer, type TestDnsServer } from "./dns-server.js";
import { createTestInstance, type TestInstance } from "./instance.js";
import { correctZone } from "./sending-domains.js";
import { startSmtpSink, type SmtpSink } from "./smtp-sink.js";

/** A follow-up step as a campaign is created with it. */
type FollowUp = NonNullable<CreateCampaignBody["followUps"]>[number];

const relays: SmtpRelay[] = [];

// Before the sink closes (hooks run last-registered first): an idle pooled connection
// would otherwise hold the sink's close for its idle time.
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

export const POSTAL_ADDRESS = "Acme Dental\n12 Main Street\nSpringfield, IL 62701";

export interface SendingSetup {
  instance: TestInstance;
  principal: Principal;
  sink: SmtpSink;
  dns: TestDnsServer;
  /** The workspace's sending domain, verified against the test DNS server. */
  domain: SendingDomain;
  /** mailauth's resolver, asking the same DNS server the domain was verified against. */
  resolver: (name: string, type: string) => Promise<unknown>;
  /** A contact of the workspace (through the contacts service: encrypted, blind-indexed). */
  addContact(email: string, extra?: { name?: string; tags?: string[] }): string;
  /** A one-time campaign with content (and `followUps`), launched to every contact (or those with `tags`). */
  launchOneTime(options?: { subject?: string; body?: string; followUps?: FollowUp[]; tags?: string[]; scheduledAt?: string }): Promise<{ campaignId: string; queued: number }>;
  /** The delivery loop over a real SMTP relay connection to the sink. */
  delivery(options?: { hooks?: DeliveryHooks; log?: string[]; batchSize?: number; concurrency?: number }): DeliveryService;
  logs: string[];
}

/**
 * A data directory that can send: the sink as OUTREACH_SMTP_URL, a sending domain verified
 * for real (its records served by a DNS server on 127.0.0.1, checked by the product's own
 * verification), the brand's postal address, throttles off unless `config` sets them.
 */
export async function sendingSetup(options: { config?: Partial<ServerConfig>; plan?: string; sinkAuth?: { user: string; pass: string }; dkimEd25519?: boolean } = {}): Promise<SendingSetup> {
  const sink = await startSmtpSink({ auth: options.sinkAuth });
  const dns = await startDnsServer();
  const instance = createTestInstance({
    plan: options.plan,
    config: {
      smtp: { host: "127.0.0.1", port: sink.port, secure: false, connections: 2 },
      publicUrl: "http://127.0.0.1:9/outreach",
      sendPerMinute: 0,
      sendPerRecipientDomainPerMinute: 0,
      dnsServers: [dns.address],
      domainVerifyIntervalSeconds: 0,
      ...options.config,
    },
  });
  const services = instance.services;
  const principal = services.auth.authenticate(`Bearer ${instance.token}`);
  await services.sendingDomains.add(principal, instance.teamId, {
    domain: "acme-dental.test",
    senderEmail: "hello@acme-dental.test",
    senderName: "Acme Dental",
    ...(options.dkimEd25519 ? { dkimEd25519: true } : {}),
  });
  const added = services.sendingDomains.list(principal, instance.teamId).domains[0]!;
  dns.zone = correctZone(added);
  await services.sendingDomains.verify(principal, added.id);
  const domain = services.sendingDomains.list(principal, instance.teamId).domains[0]!;
  if (domain.status !== "verified") throw new Error(`the test domain did not verify: ${JSON.stringify(domain.dnsRecords)}`);
  services.brand.update(principal, { brandName: "Acme Dental", postalAddress: POSTAL_ADDRESS });

  const dnsResolver = new Resolver();
  dnsResolver.setServers([dns.address]);
  const logs: string[] = [];
  return {
    instance,
    principal,
    sink,
    dns,
    domain,
    logs,
    resolver: (name, type) => dnsResolver.resolve(name, type as "TXT"),
    addContact(email, extra = {}) {
      return services.contacts.add(instance.teamId, { email, name: extra.name ?? email.split("@")[0]!, tags: extra.tags }).id;
    },
    async launchOneTime(o = {}) {
      const campaign = await services.campaigns.create(principal, {
        name: "November news",
        type: "one-time",
        subject: o.subject ?? "Hello {{ contact.name }}",
        bodyMarkdown: o.body ?? "Dear {{ contact.name }},\n\nour **new** clinic is open.\n\n[Book a visit](https://acme-dental.test/book)",
        sendingDomainId: domain.id,
        ...(o.followUps ? { followUps: o.followUps } : {}),
      });
      const launched = services.campaigns.launch(principal, campaign.id, { ...(o.tags ? { tags: o.tags } : {}), ...(o.scheduledAt ? { scheduledAt: o.scheduledAt } : {}) });
      return { campaignId: campaign.id, queued: launched.queued };
    },
    delivery(o = {}) {
      const smtp = services.deps.config.smtp!;
      const relay = new SmtpRelay({ ...smtp });
      relays.push(relay);
      const log = o.log ?? logs;
      return createDelivery(services, { relay, log: (line) => log.push(line), hooks: o.hooks, batchSize: o.batchSize, concurrency: o.concurrency });
    },
  };
}
