import { newId } from "../../src/core/ids.js";
import { createReplySync } from "../../src/services/replies/reply-runtime.js";
import type { ReplySyncDeps } from "../../src/services/replies/reply-sync.js";
import { settingsOf, type Dovecot } from "./mailbox.js";
import { sendingSetup, type SendingSetup } from "./sending.js";

export interface SentCampaign {
  setup: SendingSetup;
  campaignId: string;
  /** Contact id by email. */
  contact: Record<string, string>;
  /** The Message-ID step 0 went out with, by email. */
  messageId: Record<string, string>;
  /** The status of each contact's next step (step 1), by email. */
  nextStep(): Record<string, string>;
  contactStatus(email: string): string;
  sync(dovecot: Dovecot, options?: Partial<Pick<ReplySyncDeps, "reader" | "batchSize" | "timeoutMs">> & { attempts?: number; port?: number }): ReturnType<ReturnType<typeof createReplySync>["syncOnce"]>;
}

/**
 * A one-time campaign ("Hello {{ contact.name }}") sent through the real delivery path to
 * a real SMTP sink, so each execution has the Message-ID the relay got; then each contact's
 * step 1 is created `pending`, as the sequence does once step 0 is sent.
 */
export async function sentCampaign(people: Array<{ email: string; name: string }>, rules: { stopScope?: "contact" | "domain"; stopOnAutoReply?: boolean } = {}): Promise<SentCampaign> {
  const setup = await sendingSetup();
  const contact: Record<string, string> = {};
  for (const p of people) contact[p.email] = setup.addContact(p.email, { name: p.name });
  const { campaignId } = await setup.launchOneTime();
  const result = await setup.delivery().runUntilEmpty();
  if (result.sent !== people.length) throw new Error(`expected ${people.length} sent, got ${JSON.stringify(result)}`);
  const db = setup.instance.services.deps.db;
  db.prepare("UPDATE campaigns SET stop_scope = ?, stop_on_auto_reply = ? WHERE id = ?").run(rules.stopScope ?? "contact", rules.stopOnAutoReply ? 1 : 0, campaignId);
  const messageId: Record<string, string> = {};
  const now = setup.instance.clock.now().toISOString();
  for (const p of people) {
    messageId[p.email] = db.prepare("SELECT message_id FROM campaign_executions WHERE contact_id = ? AND step = 0").pluck().get(contact[p.email]) as string;
    db.prepare(
      `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, not_before, created_at, updated_at)
       VALUES (?, ?, ?, ?, 1, 'pending', ?, ?, ?)`,
    ).run(newId("exe"), campaignId, setup.instance.teamId, contact[p.email], new Date(Date.parse(now) + 3 * 86_400_000).toISOString(), now, now);
  }
  return {
    setup,
    campaignId,
    contact,
    messageId,
    nextStep() {
      const out: Record<string, string> = {};
      for (const p of people) out[p.email] = db.prepare("SELECT status FROM campaign_executions WHERE contact_id = ? AND step = 1").pluck().get(contact[p.email]) as string;
      return out;
    },
    contactStatus(email) {
      return db.prepare("SELECT status FROM contacts WHERE id = ?").pluck().get(contact[email]) as string;
    },
    sync(dovecot, options = {}) {
      const { attempts, port, ...rest } = options;
      return createReplySync(setup.instance.services, { log: (line) => setup.logs.push(line), settings: settingsOf(dovecot, "INBOX", port), ...rest }).syncOnce({ attempts: attempts ?? 3 });
    },
  };
}
