import type { MessageSigner } from "../../providers/smtp/signing-threads.js";
import type { Claimed } from "./delivery-claims.js";
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

/** What rendering and signing a batch of claimed messages needs: built once per claim, not per message. */
export interface PrepareContext {
  messages: OutgoingMessages;
  sequences: SequenceSteps;
  signer: MessageSigner;
  cache: DeliveryPassCache;
  now: () => Date;
}

/**
 * Render a claimed execution's message (from what the claim read once: the campaign, the
 * brand, the sender, the keys, and the contact it decrypted) and have it composed and
 * signed. Never rejects: a message that cannot be built is the answer `{ error }`,
 * recorded as that execution's failure.
 */
export async function prepareMessage(context: PrepareContext, claimed: Claimed): Promise<PreparedMessage | { error: string }> {
  const { cache } = context;
  const { due, sendingDomainId, contact } = claimed;
  try {
    const campaign = cache.campaign(due.team_id, due.campaign_id)!;
    const sender = cache.sender(due.team_id, sendingDomainId)!;
    const thread = due.step > 0 ? context.sequences.thread(due.campaign_id, due.contact_id, due.step) : [];
    const message = await context.messages.build({ campaign, executionId: due.id, contact, sender, brand: cache.brand(due.team_id), step: due.step, thread });
    const raw = await context.signer.sign({ ...message, date: context.now() }, cache.signingKeys(due.team_id, sendingDomainId));
    return { raw, messageId: message.messageId, envelope: message.envelope };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
