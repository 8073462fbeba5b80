import { simpleParser } from "mailparser";
import { parseDeliveryStatus } from "../smtp/bounce-listener.js";
import { parseHeaderBlock } from "./mailbox-reader.js";

/** What the sync reads of a message's body: its plain text, and the report of a DSN. */
export interface MessageContent {
  /** The plain-text part (or the HTML part's text when there is none). */
  text: string;
  /** A delivery status notification's first recipient status (RFC 3464), when it is one. */
  report?: { status: string; action: string | null; diagnostic: string | null };
  /** The Message-ID of the message a DSN reports on (from its returned headers), when present. */
  originalMessageId?: string;
  /** Recipients the DSN names (Final-Recipient / Original-Recipient), lower-cased. */
  reportedRecipients: string[];
}

/**
 * Parse the first bytes of a message (mailparser, as the bounce listener does; a cut-off
 * message parses as far as it goes). A DSN's `message/delivery-status` part gives the
 * status; its `text/rfc822-headers` or `message/rfc822` part the original's Message-ID.
 */
export async function readMessageContent(source: Buffer): Promise<MessageContent> {
  const mail = await simpleParser(source, { skipTextToHtml: true, skipTextLinks: true, keepDeliveryStatus: true });
  const text = (mail.text ?? "").trim();
  const content: MessageContent = { text, reportedRecipients: [] };
  const status = mail.attachments.find((a) => a.contentType.toLowerCase() === "message/delivery-status");
  if (status) {
    const body = status.content.toString("utf8");
    content.report = parseDeliveryStatus(body);
    for (const m of body.matchAll(/^(?:final|original)-recipient:\s*[^;]*;\s*(\S+)\s*$/gim)) content.reportedRecipients.push(m[1]!.toLowerCase());
  }
  const original = mail.attachments.find((a) => ["text/rfc822-headers", "message/rfc822"].includes(a.contentType.toLowerCase()));
  if (original) {
    const head = original.content.toString("utf8").split(/\r?\n\r?\n/)[0] ?? "";
    const id = parseHeaderBlock(head).get("message-id")?.[0];
    const bracketed = id ? /<[^<>\s]+>/.exec(id)?.[0] : undefined;
    if (bracketed) content.originalMessageId = bracketed;
  }
  return content;
}
