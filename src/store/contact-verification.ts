import type { Db } from "./db.js";
import type { ContactRow } from "./contacts.js";

export type DomainSmtpAnswer = "catch-all" | "greylisted" | "unreachable";

/**
 * Address verification's rows (migration 027): each contact's result, the resumable `all`
 * run per workspace, the greylisting retries and the per-domain answers.
 */
export class VerificationRepo {
  constructor(private readonly db: Db) {}

  /**
   * One contact's result, in one statement (never half-written). Only while the contact
   * still has the email that was checked (`email_ct`): a change meanwhile wins.
   */
  write(teamId: string, contactId: string, emailCt: string, json: string, status: string, at: string): boolean {
    return (
      this.db
        .prepare("UPDATE contacts SET verification = ?, verification_status = ?, verified_at = ? WHERE id = ? AND team_id = ? AND email_ct = ?")
        .run(json, status, at, contactId, teamId, emailCt).changes > 0
    );
  }

  /** The email changed: the old verification says nothing about the new address. */
  clear(contactId: string): void {
    this.db.prepare("UPDATE contacts SET verification = NULL, verification_status = NULL, verified_at = NULL WHERE id = ?").run(contactId);
    this.db.prepare("DELETE FROM verification_retries WHERE contact_id = ?").run(contactId);
  }

  /** Statuses of these contacts (launch's filter), `undeliverable` ones only, with their reason. */
  undeliverableAmong(teamId: string, contactIds: readonly string[]): Map<string, string> {
    const rows = this.db
      .prepare(
        `SELECT c.id, c.verification FROM json_each(?) j CROSS JOIN contacts c ON c.id = j.value
         WHERE +c.team_id = ? AND c.verification_status = 'undeliverable'`,
      )
      .all(JSON.stringify(contactIds), teamId) as Array<{ id: string; verification: string }>;
    return new Map(rows.map((r) => [r.id, (JSON.parse(r.verification) as { reason: string }).reason]));
  }

  // ---- runs over a whole workspace --------------------------------------------

  runStartedAt(teamId: string): string | undefined {
    return (this.db.prepare("SELECT started_at FROM verification_runs WHERE team_id = ?").pluck().get(teamId) as string | undefined) ?? undefined;
  }

  startRun(teamId: string, at: string): void {
    this.db.prepare("INSERT INTO verification_runs (team_id, started_at, updated_at) VALUES (?, ?, ?)").run(teamId, at, at);
  }

  endRun(teamId: string): void {
    this.db.prepare("DELETE FROM verification_runs WHERE team_id = ?").run(teamId);
  }

  /** Contacts of the run not yet written by it, after `afterId` by id: one page at a time (bounded memory). */
  runPage(teamId: string, startedAt: string, afterId: string, limit: number): ContactRow[] {
    return this.db
      .prepare("SELECT * FROM contacts WHERE team_id = ? AND id > ? AND (verified_at IS NULL OR verified_at < ?) ORDER BY id LIMIT ?")
      .all(teamId, afterId, startedAt, limit) as ContactRow[];
  }

  runRemaining(teamId: string, startedAt: string): number {
    return (this.db.prepare("SELECT COUNT(*) FROM contacts WHERE team_id = ? AND (verified_at IS NULL OR verified_at < ?)").pluck().get(teamId, startedAt) as number) ?? 0;
  }

  // ---- greylisting retries ------------------------------------------------------

  triesOf(contactId: string): number {
    return (this.db.prepare("SELECT tries FROM verification_retries WHERE contact_id = ?").pluck().get(contactId) as number | undefined) ?? 0;
  }

  scheduleRetry(teamId: string, contactId: string, tries: number, dueAt: string): void {
    this.db
      .prepare("INSERT INTO verification_retries (contact_id, team_id, tries, due_at) VALUES (?, ?, ?, ?) ON CONFLICT (contact_id) DO UPDATE SET tries = excluded.tries, due_at = excluded.due_at")
      .run(contactId, teamId, tries, dueAt);
  }

  dropRetry(contactId: string): void {
    this.db.prepare("DELETE FROM verification_retries WHERE contact_id = ?").run(contactId);
  }

  /** Retries due at `now`, per workspace, oldest first. */
  dueRetries(now: string, limit: number): Array<{ contact_id: string; team_id: string }> {
    return this.db.prepare("SELECT contact_id, team_id FROM verification_retries WHERE due_at <= ? ORDER BY due_at LIMIT ?").all(now, limit) as Array<{ contact_id: string; team_id: string }>;
  }

  // ---- per-domain answers ---------------------------------------------------------

  domainAnswer(domain: string, now: string): { smtp: DomainSmtpAnswer; reason: string; expires_at: string } | undefined {
    return this.db.prepare("SELECT smtp, reason, expires_at FROM verification_domains WHERE domain = ? AND expires_at > ?").get(domain, now) as
      | { smtp: DomainSmtpAnswer; reason: string; expires_at: string }
      | undefined;
  }

  setDomainAnswer(domain: string, smtp: DomainSmtpAnswer, reason: string, expiresAt: string): void {
    this.db
      .prepare("INSERT INTO verification_domains (domain, smtp, reason, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (domain) DO UPDATE SET smtp = excluded.smtp, reason = excluded.reason, expires_at = excluded.expires_at")
      .run(domain, smtp, reason, expiresAt);
  }
}
