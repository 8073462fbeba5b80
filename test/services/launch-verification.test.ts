import { describe, expect, it } from "vitest";
import { sendingSetup } from "../helpers/sending.js";

describe("launch and address verification", () => {
  it("skips contacts verified undeliverable (execution skipped, error says why) unless includeUndeliverable", async () => {
    const setup = await sendingSetup();
    const { instance, principal, dns } = setup;
    const services = instance.services;
    dns.zone = {
      ...dns.zone,
      mx: { ...dns.zone.mx, "gone.test": [{ exchange: ".", priority: 0 }], "fine.test": [{ exchange: "mx.fine.test", priority: 10 }] },
      a: { ...dns.zone.a, "mx.fine.test": ["127.0.0.2"] },
    };
    const gone = setup.addContact("old@gone.test");
    const fine = setup.addContact("anna@fine.test");
    const unverified = setup.addContact("new@fine.test");
    await services.verification.verify(instance.teamId, { contactIds: [gone, fine] });
    expect(services.contacts.get(instance.teamId, gone).verification?.status).toBe("undeliverable");
    expect(services.contacts.get(instance.teamId, fine).verification?.status).toBe("unknown");

    const create = () =>
      services.campaigns.create(principal, { name: "N", type: "one-time", subject: "Hi {{ contact.name }}", bodyMarkdown: "Hello", sendingDomainId: setup.domain.id });
    const first = await create();
    const launched = services.campaigns.launch(principal, first.id, {});
    expect(launched.queued).toBe(2);
    expect(launched.skipped).toEqual({ undeliverable: 1 });
    const executions = services.campaigns.executions(principal, first.id, { page: 1, limit: 20 } as never).executions;
    const byContact = new Map(executions.map((e) => [e.contactId, e]));
    expect(byContact.get(gone)).toMatchObject({ status: "skipped" });
    expect(byContact.get(gone)!.error).toMatch(/verified undeliverable \(gone\.test declares that it accepts no mail/);
    expect(byContact.get(fine)!.status).toBe("pending");
    expect(byContact.get(unverified)!.status).toBe("pending");

    const second = await create();
    const all = services.campaigns.launch(principal, second.id, { includeUndeliverable: true });
    expect(all).toMatchObject({ queued: 3, skipped: { undeliverable: 0 } });
  });
});
