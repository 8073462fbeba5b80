import type { Clock } from "../../core/clock.js";
import { DeliveriesRepo } from "../../store/deliveries.js";
import type { Db } from "../../store/db.js";
import { stopSequencesOfContact } from "../../store/sequence-stops.js";
import type { BrandService } from "./brand.js";
import type { ContactService } from "../contacts/contacts.js";
import type { SuppressionList } from "../contacts/suppressions.js";
import type { UnsubscribeTokens } from "./unsubscribe-tokens.js";

/** What the unsubscribe page shows: whose list it is. Nothing about the contact. */
export interface UnsubscribeTarget {
  brandName: string | null;
}

/**
 * One-click unsubscribe (RFC 8058) behind `/u/{token}`: the contact becomes
 * `unsubscribed`, its address goes on the workspace's suppression list, and its pending
 * executions in every campaign are skipped, in one transaction. Idempotent.
 */
export class UnsubscribeService {
  private readonly repo: DeliveriesRepo;

  constructor(
    private readonly deps: { db: Db; clock: Clock; tokens: UnsubscribeTokens; contacts: ContactService; suppressions: SuppressionList; brand: BrandService },
  ) {
    this.repo = new DeliveriesRepo(deps.db);
  }

  /** The token's workspace brand, or undefined for a token that is not ours. */
  describe(token: string): UnsubscribeTarget | undefined {
    const target = this.deps.tokens.read(token);
    if (!target) return undefined;
    const teamId = this.teamOf(target.campaignId);
    if (!teamId) return undefined;
    return { brandName: this.deps.brand.forTeam(teamId).brandName };
  }

  /** Undefined for a token that is not ours; otherwise done (also when it was done before). */
  unsubscribe(token: string): UnsubscribeTarget | undefined {
    const target = this.deps.tokens.read(token);
    if (!target) return undefined;
    return this.deps.db
      .transaction(() => {
        const teamId = this.teamOf(target.campaignId);
        if (!teamId) return undefined;
        const now = this.deps.clock.now().toISOString();
        const contact = this.repo.contact(teamId, target.contactId);
        // A deleted contact has nothing left to send to; the link still answers kindly.
        if (contact) {
          this.repo.setContactStatus(contact.id, "unsubscribed", ["unsubscribed", "bounced"], now);
          this.deps.suppressions.add(teamId, this.deps.contacts.emailOf(contact), "unsubscribed", now);
          this.repo.skipOpenOfContact(contact.id, "the contact unsubscribed", now);
          // No later step is ever created for it, even from a step in flight now.
          stopSequencesOfContact(this.deps.db, contact.id, "unsubscribed", now);
        }
        return { brandName: this.deps.brand.forTeam(teamId).brandName };
      })
      .immediate();
  }

  private teamOf(campaignId: string): string | undefined {
    return this.repo.campaignTeam(campaignId);
  }
}
