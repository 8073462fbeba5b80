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

function decodeQuotedPrintable(text: string): Buffer {
  const soft = text.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft.charCodeAt(i);
    if (c === 61 /* = */ && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c & 0xff);
  }
  return Buffer.from(bytes);
}

function param(value: string, name: string): string | undefined {
  return new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i").exec(value)?.slice(1).find((v) => v !== undefined);
}

/** A leaf part's text, decoded by its transfer encoding and charset; undefined when it is not one we read without mailparser. */
function leafText(headers: Map<string, string[]>, body: string): string | undefined {
  const type = headers.get("content-type")?.[0] ?? "text/plain";
  if (!/^text\/plain\b/i.test(type.trim())) return undefined;
  const encoding = (headers.get("content-transfer-encoding")?.[0] ?? "7bit").trim().toLowerCase();
  const raw =
    encoding === "base64"
      ? Buffer.from(body.replace(/\s+/g, ""), "base64")
      : encoding === "quoted-printable"
        ? decodeQuotedPrintable(body)
        : ["7bit", "8bit", "binary"].includes(encoding)
          ? Buffer.from(body, "latin1")
          : undefined;
  if (!raw) return undefined;
  const charset = (param(type, "charset") ?? "us-ascii").toLowerCase();
  try {
    // Line ends as mailparser gives them.
    return new TextDecoder(charset === "us-ascii" ? "utf-8" : charset).decode(raw).replace(/\r\n?/g, "\n");
  } catch {
    return undefined;
  }
}

function split(part: string): { headers: Map<string, string[]>; body: string } {
  const at = part.search(/\r?\n\r?\n/);
  if (at < 0) return { headers: parseHeaderBlock(part), body: "" };
  const gap = /\r?\n\r?\n/.exec(part.slice(at))![0].length;
  return { headers: parseHeaderBlock(part.slice(0, at)), body: part.slice(at + gap) };
}

/**
 * The plain text of a reply as most clients write it (text/plain, or a multipart/alternative
 * or multipart/mixed whose first text/plain part is a leaf), without mailparser: it costs
 * ~2 ms a message, which a first sync of a large mailbox pays for every reply. Anything else
 * (nested multiparts, HTML only, unknown encodings or charsets): undefined, and mailparser
 * reads it.
 */
export function quickPlainText(source: Buffer): string | undefined {
  const { headers, body } = split(source.toString("latin1"));
  const type = headers.get("content-type")?.[0] ?? "text/plain";
  if (!/^multipart\//i.test(type.trim())) return leafText(headers, body)?.trim();
  if (!/^multipart\/(alternative|mixed)\b/i.test(type.trim())) return undefined;
  const boundary = param(type, "boundary");
  if (!boundary) return undefined;
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith("--")) break;
    const part = split(chunk.replace(/^[ \t]*\r?\n/, ""));
    const ptype = part.headers.get("content-type")?.[0] ?? "text/plain";
    if (/^multipart\//i.test(ptype.trim())) return undefined;
    if (!/^text\/plain\b/i.test(ptype.trim())) continue;
    if (/attachment/i.test(part.headers.get("content-disposition")?.[0] ?? "")) continue;
    return leafText(part.headers, part.body.replace(/\r?\n$/, ""))?.trim();
  }
  return undefined;
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
