import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.js";
import type { LifetimeStatus } from "../../src/core/schemas/campaign.js";
import type { Principal } from "../../src/services/access/auth.js";
import { CampaignsRepo } from "../../src/store/campaigns.js";
import { insertContact } from "../helpers/contacts.js";
import { createTestInstance, type TestInstance } from "../helpers/instance.js";

const STATUSES: LifetimeStatus[] = ["draft", "active", "paused", "archived"];
const TARGETS = ["active", "paused", "archived"] as const;

/** The lifecycle of docs/api.md ("Campaigns"), written out independently of the implementation's table. */
const LEGAL = new Set(["draft>active", "active>paused", "active>archived", "paused>active", "paused>archived"]);

function setup(): { instance: TestInstance; principal: Principal } {
  const instance = createTestInstance();
  return { instance, principal: instance.services.auth.authenticate(`Bearer ${instance.token}`) };
}

/** A lifetime campaign put straight into `status` (the table under test is the lifecycle, not its history). */
async function campaignIn(instance: TestInstance, principal: Principal, status: LifetimeStatus): Promise<string> {
  const campaign = await instance.services.campaigns.create(principal, { name: "Welcome", type: "lifetime", subject: "Hello" });
  instance.services.deps.db.prepare("UPDATE campaigns SET status = ? WHERE id = ?").run(status, campaign.id);
  return campaign.id;
}

function statusOf(instance: TestInstance, id: string): string {
  return (instance.services.deps.db.prepare("SELECT status FROM campaigns WHERE id = ?").get(id) as { status: string }).status;
}

function executionStatuses(instance: TestInstance, campaignId: string): Record<string, string> {
  const rows = instance.services.deps.db
    .prepare("SELECT contact_id, status FROM campaign_executions WHERE campaign_id = ?")
    .all(campaignId) as Array<{ contact_id: string; status: string }>;
  return Object.fromEntries(rows.map((r) => [r.contact_id, r.status]));
}

/** One execution in each status, written directly: the lifecycle must only touch pending and queued. */
function seedExecutions(instance: TestInstance, campaignId: string): Record<string, string> {
  const db = instance.services.deps.db;
  const byStatus: Record<string, string> = {};
  for (const status of ["pending", "queued", "sent", "failed", "cancelled"]) {
    const contactId = insertContact(instance.services, instance.teamId);
    db.prepare(
      `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, 0, ?, '2026-11-22T09:00:00.000Z', '2026-11-22T09:00:00.000Z')`,
    ).run(`exe_${status}`, campaignId, instance.teamId, contactId, status);
    byStatus[status] = contactId;
  }
  return byStatus;
}

describe("lifetime campaign lifecycle", () => {
  for (const from of STATUSES) {
    for (const to of TARGETS) {
      const verdict = from === to ? "keeps" : LEGAL.has(`${from}>${to}`) ? "moves" : "refuses";
      it(`${verdict} ${from} → ${to}`, async () => {
        const { instance, principal } = setup();
        const id = await campaignIn(instance, principal, from);
        const before = instance.services.campaigns.get(principal, id);
        instance.clock.advance(1000);
        if (verdict === "refuses") {
          let error: unknown;
          try {
            instance.services.campaigns.changeLifecycle(principal, id, { status: to });
          } catch (err) {
            error = err;
          }
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).status).toBe(409);
          expect((error as AppError).message).toContain(`is ${from} and cannot move to ${to}`);
          const allowed = [...LEGAL].filter((m) => m.startsWith(`${from}>`)).map((m) => m.split(">")[1]);
          expect((error as AppError).message).toContain(allowed.length ? `it can move to ${allowed.join(" or ")}` : "archived campaigns cannot change status");
          expect(statusOf(instance, id)).toBe(from);
        } else if (verdict === "keeps") {
          const after = instance.services.campaigns.changeLifecycle(principal, id, { status: to });
          expect(after).toEqual(before);
        } else {
          const after = instance.services.campaigns.changeLifecycle(principal, id, { status: to });
          expect(after.status).toBe(to);
          expect(after.updatedAt).toBe("2026-11-22T10:00:01.000Z");
          expect(statusOf(instance, id)).toBe(to);
        }
      });
    }
  }

  for (const to of ["paused", "archived"] as const) {
    it(`cancels pending and queued executions, and only those, when moving active → ${to}`, async () => {
      const { instance, principal } = setup();
      const id = await campaignIn(instance, principal, "active");
      const contacts = seedExecutions(instance, id);
      instance.services.campaigns.changeLifecycle(principal, id, { status: to });
      expect(executionStatuses(instance, id)).toEqual({
        [contacts.pending!]: "cancelled",
        [contacts.queued!]: "cancelled",
        [contacts.sent!]: "sent",
        [contacts.failed!]: "failed",
        [contacts.cancelled!]: "cancelled",
      });
    });
  }

  it("cancels open executions when archiving a paused campaign", async () => {
    const { instance, principal } = setup();
    const id = await campaignIn(instance, principal, "paused");
    const contacts = seedExecutions(instance, id);
    instance.services.campaigns.changeLifecycle(principal, id, { status: "archived" });
    expect(executionStatuses(instance, id)[contacts.queued!]).toBe("cancelled");
    expect(executionStatuses(instance, id)[contacts.pending!]).toBe("cancelled");
  });

  it("leaves executions alone when activating, and does not re-queue cancelled ones on resume", async () => {
    const { instance, principal } = setup();
    const id = await campaignIn(instance, principal, "paused");
    const before = seedExecutions(instance, id);
    instance.services.campaigns.changeLifecycle(principal, id, { status: "active" });
    expect(executionStatuses(instance, id)).toEqual({
      [before.pending!]: "pending",
      [before.queued!]: "queued",
      [before.sent!]: "sent",
      [before.failed!]: "failed",
      [before.cancelled!]: "cancelled",
    });
  });

  it("rolls the status change back when cancelling the executions fails half-way", async () => {
    const { instance, principal } = setup();
    const id = await campaignIn(instance, principal, "active");
    const contacts = seedExecutions(instance, id);
    const db = instance.services.deps.db;
    db.exec(`CREATE TEMP TRIGGER fail_cancel BEFORE UPDATE OF status ON campaign_executions
             WHEN NEW.status = 'cancelled' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`);
    expect(() => instance.services.campaigns.changeLifecycle(principal, id, { status: "paused" })).toThrow();
    db.exec("DROP TRIGGER fail_cancel");
    expect(statusOf(instance, id)).toBe("active");
    expect(executionStatuses(instance, id)[contacts.queued!]).toBe("queued");
  });

  it("refuses lifecycle changes of one-time campaigns with 409", async () => {
    const { instance, principal } = setup();
    const campaign = await instance.services.campaigns.create(principal, { name: "News", type: "one-time", subject: "November" });
    expect(() => instance.services.campaigns.changeLifecycle(principal, campaign.id, { status: "active" })).toThrow(
      "lifecycle applies to lifetime campaigns",
    );
  });

  it("refuses a move whose expectedStatus no longer holds, naming the current status", async () => {
    const { instance, principal } = setup();
    const id = await campaignIn(instance, principal, "paused");
    expect(() => instance.services.campaigns.changeLifecycle(principal, id, { status: "archived", expectedStatus: "active" })).toThrow(
      `campaign ${id} is paused, not active as expected`,
    );
    expect(statusOf(instance, id)).toBe("paused");
  });

  it("the guarded UPDATE changes nothing when the status moved since it was read", async () => {
    const { instance, principal } = setup();
    const id = await campaignIn(instance, principal, "active");
    const repo = new CampaignsRepo(instance.services.deps.db);
    // A stale reader still believes the campaign is draft: its guard no longer matches.
    expect(repo.moveStatus(instance.teamId, id, ["draft"], "active", "2026-11-22T11:00:00.000Z")).toBeUndefined();
    expect(repo.moveStatus(instance.teamId, id, ["active"], "paused", "2026-11-22T11:00:00.000Z")?.status).toBe("paused");
  });

  it("answers 404 for another workspace's campaign", async () => {
    const { instance, principal } = setup();
    const id = await campaignIn(instance, principal, "draft");
    const foreign: Principal = { ...principal, teamId: "team_someoneelse0000" };
    expect(() => instance.services.campaigns.changeLifecycle(foreign, id, { status: "active" })).toThrow(`campaign ${id} not found`);
  });
});
