import { describe, expect, it } from "vitest";
import { CampaignsRepo } from "../../src/store/campaigns.js";
import { insertContact } from "../helpers/contacts.js";
import { createTestInstance } from "../helpers/instance.js";

const NOW = "2026-11-22T10:00:00.000Z";

function setup() {
  const instance = createTestInstance();
  const db = instance.services.deps.db;
  const repo = new CampaignsRepo(db);
  const campaign = {
    id: "cmp_test000000000001",
    team_id: instance.teamId,
    name: "n",
    type: "lifetime" as const,
    status: "active",
    subject: "s",
    scheduled_at: null,
    sent_at: null,
    created_at: NOW,
    updated_at: NOW,
    body_markdown: "",
    sending_domain_id: null,
    launched_at: null,
    audience: null,
    follow_ups: "[]",
    send_window: null,
    stop_scope: "contact" as const,
    stop_on_auto_reply: 0 as const,
  };
  repo.insert(campaign);
  return { instance, db, repo, campaign };
}

describe("campaign tables", () => {
  it("refuse a status that does not belong to the campaign's type", () => {
    const { repo, campaign } = setup();
    expect(() => repo.insert({ ...campaign, id: "cmp_test000000000002", status: "scheduled" })).toThrow(/CHECK constraint/);
    expect(() => repo.insert({ ...campaign, id: "cmp_test000000000003", type: "one-time", status: "paused" })).toThrow(/CHECK constraint/);
  });

  it("hold at most one execution per campaign, contact and step, whatever writes it", () => {
    const { instance, db, repo, campaign } = setup();
    const contactId = insertContact(instance.services, instance.teamId);
    const row = { id: "exe_1", campaign_id: campaign.id, team_id: instance.teamId, contact_id: contactId, step: 0, status: "pending" as const, not_before: NOW, created_at: NOW, updated_at: NOW };
    expect(repo.queueExecution(row).created).toBe(true);
    expect(() =>
      db
        .prepare(
          "INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, created_at, updated_at) VALUES ('exe_2', ?, ?, ?, 0, 'queued', ?, ?)",
        )
        .run(campaign.id, instance.teamId, contactId, NOW, NOW),
    ).toThrow(/UNIQUE constraint/);
    expect(repo.queueExecution({ ...row, id: "exe_3" })).toMatchObject({ created: false, execution: { id: "exe_1" } });
    // A sent execution is never re-queued, not even after a cancel-and-resume elsewhere.
    db.prepare("UPDATE campaign_executions SET status = 'sent' WHERE id = 'exe_1'").run();
    expect(repo.queueExecution({ ...row, id: "exe_4" })).toMatchObject({ created: false, execution: { id: "exe_1", status: "sent" } });
    expect(repo.queueExecution({ ...row, id: "exe_5", step: 1 }).created).toBe(true);
  });

  it("drop a contact's executions with the contact", () => {
    const { instance, db, repo, campaign } = setup();
    const contactId = insertContact(instance.services, instance.teamId);
    repo.queueExecution({ id: "exe_1", campaign_id: campaign.id, team_id: instance.teamId, contact_id: contactId, step: 0, status: "pending", not_before: NOW, created_at: NOW, updated_at: NOW });
    db.prepare("DELETE FROM contacts WHERE id = ?").run(contactId);
    expect(repo.executions(campaign.id, {}, 20, 0).total).toBe(0);
  });
});
