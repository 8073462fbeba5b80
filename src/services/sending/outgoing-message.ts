import type { BrandSettings } from "../../core/schemas/brand.js";
import type { ComposableMessage } from "../../providers/smtp/message-signer.js";
import type { CampaignRow } from "../../store/campaigns.js";
import { parseBody, renderHtmlPart, renderTextPart } from "./message-body.js";
import type { MessageTemplates, TemplateContext } from "./message-template.js";
import type { UnsubscribeTokens } from "./unsubscribe-tokens.js";
import { followUpsOf } from "./campaign-sequence.js";

/** The contact's fields a message is rendered with. */
export interface MessageContact {
  id: string;
  email: string;
  name: string;
  phone: string | null;
  description: string | null;
  tags: string[];
}

export interface MessageSender {
  domain: string;
  senderEmail: string;
  senderName: string;
}

/**
 * One message, ready for nodemailer: everything but its date and the DKIM signature.
 * `messageId` is `<executionId@domain>`: one per execution, so a resend after a 4xx keeps it.
 */
export interface OutgoingMessage extends Omit<ComposableMessage, "date"> {
  /** VERP: the bounce of this one message comes back to an address that names it. */
  envelope: { from: string; to: string[] };
  /** List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058). */
  headers: Record<string, string>;
  unsubscribeUrl: string;
}

/** The return-path host of a sending domain: `bounce.<domain>`, CNAMEd to the bounce host (docs/api.md, "Sending domains"). */
export function returnPathHost(domain: string): string {
  return `bounce.${domain}`;
}

/** `bounce+<executionId>@bounce.<domain>` (VERP). */
export function verpAddress(executionId: string, domain: string): string {
  return `bounce+${executionId}@${returnPathHost(domain)}`;
}

/** The execution a VERP address names, if it is one of ours. */
export function executionOfVerp(address: string): string | undefined {
  return /^bounce\+(exe_[A-Za-z0-9]{1,60})@/i.exec(address.trim())?.[1];
}

/**
 * Builds the message a contact gets from a campaign: subject and body rendered from their
 * Liquid templates, the body's HTML and text parts from its Markdown, the footer with the
 * brand's postal address and the unsubscribe link, and the headers of one-click unsubscribe.
 */
export class OutgoingMessages {
  constructor(
    private readonly deps: {
      templates: MessageTemplates;
      tokens: UnsubscribeTokens;
      /** Where recipients reach `/u/{token}` (OUTREACH_PUBLIC_URL). */
      publicUrl: string;
      /** The contact's AI opener in a campaign (contact-openers.ts), read only when a template uses it. */
      openerOf?: (teamId: string, campaignId: string, contactId: string) => string | undefined;
    },
  ) {}

  /** The contact's opener in the campaign, when one of its templates uses it ("" otherwise). */
  openerOf(campaign: Pick<CampaignRow, "id" | "team_id" | "subject" | "body_markdown" | "follow_ups">, contactId: string): string {
    const usesOpener = `${campaign.subject}\n${campaign.body_markdown}\n${campaign.follow_ups}`.includes("opener");
    return (usesOpener && this.deps.openerOf?.(campaign.team_id, campaign.id, contactId)) || "";
  }

  unsubscribeUrl(campaignId: string, contactId: string): string {
    return `${this.deps.publicUrl}/u/${this.deps.tokens.issue({ campaignId, contactId })}`;
  }

  /**
   * `step` 0 is the campaign's own subject and body, step n its `followUps[n - 1]`. A step
   * without its own subject stays in the thread: `Re: ` + step 0's subject rendered for
   * this contact, In-Reply-To the previous step's Message-ID, References all of `thread`
   * (the contact's earlier Message-IDs in this campaign, oldest first).
   */
  async build(input: {
    campaign: CampaignRow;
    executionId: string;
    contact: MessageContact;
    sender: MessageSender;
    brand: BrandSettings;
    step?: number;
    thread?: readonly string[];
  }): Promise<OutgoingMessage> {
    const { campaign, contact, sender, brand } = input;
    const step = input.step ?? 0;
    const unsubscribeUrl = this.unsubscribeUrl(campaign.id, contact.id);
    const context: TemplateContext = {
      contact: { name: contact.name, email: contact.email, phone: contact.phone, description: contact.description, tags: contact.tags, opener: this.openerOf(campaign, contact.id) },
      brand: { ...brand },
      unsubscribeUrl,
    };
    const templates = this.deps.templates;
    const followUp = step > 0 ? followUpsOf(campaign)[step - 1] : undefined;
    if (step > 0 && !followUp) throw new Error(`campaign ${campaign.id} has no step ${step} (its follow-ups changed?)`);
    const threaded = followUp !== undefined && !followUp.subject;
    const subject = followUp?.subject
      ? await templates.render("subject", followUp.subject, context)
      : `${threaded ? "Re: " : ""}${await templates.render("subject", campaign.subject, context)}`;
    const body = await templates.render("bodyMarkdown", followUp ? followUp.bodyMarkdown : campaign.body_markdown, context);
    const thread = threaded ? [...(input.thread ?? [])] : [];
    const footer = { brandName: brand.brandName, postalAddress: brand.postalAddress ?? "", unsubscribeUrl };
    const tokens = parseBody(body);
    return {
      from: { name: sender.senderName, address: sender.senderEmail },
      to: contact.email,
      subject,
      text: renderTextPart(tokens, footer),
      html: renderHtmlPart(tokens, footer, brand.emailLanguage),
      messageId: `<${input.executionId}@${sender.domain}>`,
      envelope: { from: verpAddress(input.executionId, sender.domain), to: [contact.email] },
      headers: { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      ...(thread.length ? { inReplyTo: thread[thread.length - 1], references: thread } : {}),
      unsubscribeUrl,
    };
  }
}
