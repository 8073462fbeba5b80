import type { Clock } from "../../core/clock.js";
import type { BounceReport } from "../../providers/smtp/bounce-listener.js";
import { DeliveriesRepo } from "../../store/deliveries.js";
import type { Db } from "../../store/db.js";
import { stopSequencesOfContact } from "../../store/sequence-stops.js";
import type { ContactService } from "../contacts/contacts.js";
import { executionOfVerp } from "./outgoing-message.js";
import type { SuppressionList } from "../contacts/suppressions.js";

export type BounceOutcome = "bounced" | "transient" | "unknown";

/**
 * Delivery status notifications for our VERP addresses. The address, not the report's
 * body, says which message bounced (many servers rewrite or omit the original). A 5.x.x
 * status is permanent: the execution becomes `bounced`, the contact `bounced`, its address
 * suppressed and its other open executions skipped, in one transaction. A 4.x.x status is
 * transient (the remote server is still trying): recorded, nothing changes.
 */
export class BounceService {
  private readonly repo: DeliveriesRepo;

  constructor(private readonly deps: { db: Db; clock: Clock; contacts: ContactService; suppressions: SuppressionList; log: (line: string) => void }) {
    this.repo = new DeliveriesRepo(deps.db);
  }

  /** Whether an address is a VERP address of an execution that exists. */
  accepts(address: string): boolean {
    const id = executionOfVerp(address);
    return id !== undefined && this.repo.execution(id) !== undefined;
  }

  handle(report: BounceReport): BounceOutcome {
    const id = executionOfVerp(report.recipient);
    if (!id) return "unknown";
    const permanent = report.status.startsWith("5");
    const outcome = this.deps.db
      .transaction((): BounceOutcome => {
        const execution = this.repo.execution(id);
        if (!execution) return "unknown";
        const now = this.deps.clock.now().toISOString();
        this.repo.recordBounceReport(id, report.status, permanent, report.diagnostic, now);
        if (!permanent) return "transient";
        this.repo.markBounced(id, `bounced ${report.status}${report.diagnostic ? `: ${report.diagnostic}` : ""}`, now);
        const contact = this.repo.contact(execution.team_id, execution.contact_id);
        if (contact) {
          this.repo.setContactStatus(contact.id, "bounced", ["bounced"], now);
          this.deps.suppressions.add(execution.team_id, this.deps.contacts.emailOf(contact), "bounced", now);
          this.repo.skipOpenOfContact(contact.id, "the contact's address bounced", now);
          // No later step is ever created for it, even from a step in flight now.
          stopSequencesOfContact(this.deps.db, contact.id, "bounced", now);
        }
        return "bounced";
      })
      .immediate();
    this.deps.log(`bounce for delivery ${id}: ${report.status} (${outcome === "bounced" ? "permanent: contact marked bounced" : "transient: recorded"})`);
    return outcome;
  }
}
