import { describe, expect, it } from "vitest";
import { sendingSetup } from "../helpers/sending.js";

/**
 * A contact that replied (status `replied`, an addition of sequences): later launches leave it
 * out unless they name the status, and a launch that names it does send to it.
 */
describe("contacts that replied", () => {
  it("are left out of a launch by default, sent to when the launch names `replied`", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    const db = services.deps.db;
    setup.addContact("ann@one.test", { name: "Ann" });
    const ben = setup.addContact("ben@two.test", { name: "Ben" });
    db.prepare("UPDATE contacts SET status = 'replied' WHERE id = ?").run(ben);

    const create = (name: string) =>
      services.campaigns.create(setup.principal, { name, type: "one-time", subject: "Hi {{ contact.name }}", bodyMarkdown: "Hello.", sendingDomainId: setup.domain.id });
    const first = await create("default audience");
    expect(services.campaigns.launch(setup.principal, first.id, {}).queued).toBe(1);
    const second = await create("named audience");
    expect(services.campaigns.launch(setup.principal, second.id, { statuses: ["active", "replied"] }).queued).toBe(2);

    await setup.delivery().runUntilEmpty();
    const to = setup.sink.received.map((m) => m.rcptTo[0]).sort();
    expect(to).toEqual(["ann@one.test", "ann@one.test", "ben@two.test"]);
  });

  it("a launch naming only `replied` and matching nobody is a 409 that says so", async () => {
    const setup = await sendingSetup();
    setup.addContact("ann@one.test", { name: "Ann" });
    const campaign = await setup.instance.services.campaigns.create(setup.principal, {
      name: "x",
      type: "one-time",
      subject: "Hi",
      bodyMarkdown: "Hello.",
      sendingDomainId: setup.domain.id,
    });
    expect(() => setup.instance.services.campaigns.launch(setup.principal, campaign.id, { statuses: ["replied"] })).toThrow(/only replied contacts/);
  });
});
