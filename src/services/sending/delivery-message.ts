import type { MessageSigner } from "../../providers/smtp/signing-threads.js";
import type { DueExecution } from "../../store/deliveries.js";
import type { ContactService } from "../contacts/contacts.js";
import type { DeliveryPassCache } from "./delivery-pass-cache.js";
import type { OutgoingMessages } from "./outgoing-message.js";
import type { SequenceSteps } from "./sequence-steps.js";

/**
 * Test seams between the steps of one delivery (claim → send → record). A hook that
 * throws stops the delivery there, as a crash would: nothing after it is recorded.
 */
export interface DeliveryHooks {
  afterClaim?(executionId: string): void;
  /** Inside the point of no return, before `sending` is recorded. */
  beforeRecordSending?(executionId: string): void;
  /** After `sending` is recorded, before the final `.` is written. */
  afterRecordSending?(executionId: string): void;
  /** After the relay's answer, before it is recorded. */
  afterRelayAnswer?(executionId: string): void;
  /** After `sent` (and the next step) is committed, before the campaign is looked at. */
  afterRecordSent?(executionId: string): void;
}

/** A claimed message rendered, composed and signed: what goes to the relay. */
export interface PreparedMessage {
  raw: Buffer;
  messageId: string;
  envelope: { from: string; to: string[] };
}

/**
 * Render a claimed execution's message (from what the pass read once) and have it
 * composed and signed. Never rejects: a message that cannot be built is the answer
 * `{ error }`, recorded as that execution's failure.
 */
export async function prepareMessage(
  deps: { contacts: ContactService; messages: OutgoingMessages; sequences: SequenceSteps; signer: MessageSigner; cache: DeliveryPassCache; now: () => Date },
  due: DueExecution,
  sendingDomainId: string,
): Promise<PreparedMessage | { error: string }> {
  const { cache } = deps;
  try {
    const campaign = cache.campaign(due.team_id, due.campaign_id)!;
    const contact = deps.contacts.get(due.team_id, due.contact_id);
    const sender = cache.sender(due.team_id, sendingDomainId)!;
    const thread = due.step > 0 ? deps.sequences.thread(due.campaign_id, due.contact_id, due.step) : [];
    const message = await deps.messages.build({ campaign, executionId: due.id, contact, sender, brand: cache.brand(due.team_id), step: due.step, thread });
    const raw = await deps.signer.sign({ ...message, date: deps.now() }, cache.signingKeys(due.team_id, sendingDomainId));
    return { raw, messageId: message.messageId, envelope: message.envelope };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
