import type { KeyObject } from "node:crypto";
import nodemailer from "nodemailer";
import { addEd25519Signature, type Ed25519DkimKey } from "./dkim-ed25519.js";

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
  /** PKCS#8 PEM, or a key object made from it (parsed once, not per message). */
  privateKey: string | KeyObject;
}

/** The keys a message is signed with: RSA always, Ed25519 (RFC 8463) beside it when the domain opted in. */
export interface DkimKeys {
  rsa: DkimKey;
  ed25519?: Ed25519DkimKey;
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
 * signing is how signatures break (nodemailer issue 1654). The Ed25519 signature, when
 * asked for, is added over the finished bytes and changes none of them.
 */
export async function composeSigned(message: ComposableMessage, keys: DkimKeys): Promise<Buffer> {
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
    dkim: { ...keys.rsa, headerFieldNames: SIGNED_HEADERS },
  });
  const raw = info.message as Buffer;
  return keys.ed25519 ? addEd25519Signature(raw, keys.ed25519, SIGNED_HEADERS) : raw;
}
