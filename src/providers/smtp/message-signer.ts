import nodemailer from "nodemailer";

/** A message to compose: what nodemailer's mail options need, without attachments. */
export interface ComposableMessage {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  date: Date;
  headers: Record<string, string>;
  /** A follow-up in the thread: the previous step's Message-ID. */
  inReplyTo?: string;
  /** A follow-up in the thread: every earlier Message-ID, oldest first. */
  references?: string[];
}

export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * The header fields the signature covers: RFC 6376's usual ones and both unsubscribe
 * headers (RFC 8058 §4 requires it: a receiver ignores a one-click header that the
 * signature does not cover, since an intermediary could have added it).
 */
export const SIGNED_HEADERS = [
  "From",
  "To",
  "Subject",
  "Date",
  "Message-ID",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
  // A follow-up's threading: signed so nobody can move it into another conversation.
  "In-Reply-To",
  "References",
].join(":");

// Builds the RFC 5322 bytes only (no delivery); CRLF line ends, as they go on the wire.
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });

/**
 * The message as it goes on the wire, DKIM-signed by nodemailer itself (its `dkim`
 * option), so the headers are folded by the same code that signs them: re-folding after
 * signing is how signatures break (nodemailer issue 1654).
 */
export async function composeSigned(message: ComposableMessage, dkim: DkimKey): Promise<Buffer> {
  const info = await composer.sendMail({
    from: message.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: message.messageId,
    date: message.date,
    headers: message.headers,
    ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
    ...(message.references?.length ? { references: message.references } : {}),
    // The envelope travels separately (the relay's MAIL FROM); nodemailer wants one to compose.
    envelope: { from: message.from.address, to: [message.to] },
    dkim: { ...dkim, headerFieldNames: SIGNED_HEADERS },
  });
  return info.message as Buffer;
}
