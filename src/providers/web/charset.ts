import { TextDecoder } from "node:util";
import iconv from "iconv-lite";

/**
 * Turning a page's bytes into text, as browsers do (WHATWG encoding sniffing, reduced):
 * a byte-order mark wins, then the `charset` of the Content-Type header, then a
 * `<meta charset>` / `<meta http-equiv="content-type">` / XML declaration in the first
 * 4 KiB, and otherwise UTF-8 when the bytes are valid UTF-8, else windows-1252.
 *
 * Legacy encodings are decoded by iconv-lite: Node 20's `TextDecoder("windows-1252")`
 * maps 0x80–0x9F to C1 control characters instead of `€ ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – —
 * ˜ ™ š › œ ž Ÿ` (nodejs/node#60888), and ISO-8859-1 pages are windows-1252 in every browser.
 *
 * Two misdeclarations are common on small sites and are corrected: a legacy single-byte
 * label on bytes that are valid multi-byte UTF-8 (a server default such as Apache's
 * `AddDefaultCharset ISO-8859-1` in front of a UTF-8 page), and a UTF-8 label on bytes that
 * are not UTF-8 (a Latin-1 page behind a UTF-8 default): the bytes decide.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): { text: string; charset: string } {
  const bom = sniffBom(bytes);
  if (bom) return { text: decodeAs(bytes.subarray(bom === "utf-8" ? 3 : 2), bom), charset: bom };
  const declared = canonicalLabel(charsetFromContentType(contentType) ?? charsetFromMeta(bytes));
  const utf8 = declared === undefined || declared === "utf-8" || SINGLE_BYTE.has(declared) ? strictUtf8(bytes) : undefined;
  if (declared && declared !== "utf-8") {
    if (SINGLE_BYTE.has(declared) && utf8 !== undefined && hasMultiByte(bytes)) return { text: utf8, charset: "utf-8" };
    return { text: decodeAs(bytes, declared), charset: declared };
  }
  if (utf8 !== undefined) return { text: utf8, charset: "utf-8" };
  return { text: decodeAs(bytes, "windows-1252"), charset: "windows-1252" };
}

/** Single-byte legacy encodings: valid multi-byte UTF-8 under one of these labels is really UTF-8. */
const SINGLE_BYTE = new Set(["windows-1252", "iso-8859-2", "iso-8859-15", "windows-1250", "windows-1254", "windows-1257", "iso-8859-9", "iso-8859-13", "koi8-r", "windows-1251"]);

/** WHATWG label aliases for the labels iconv-lite would read differently. */
const WHATWG_ALIASES: Record<string, string> = {
  "iso-8859-1": "windows-1252", "iso8859-1": "windows-1252", latin1: "windows-1252", "l1": "windows-1252", "us-ascii": "windows-1252",
  ascii: "windows-1252", "ansi_x3.4-1968": "windows-1252", "cp1252": "windows-1252", "x-cp1252": "windows-1252", "iso_8859-1": "windows-1252",
  "iso-8859-9": "windows-1254", latin5: "windows-1254", "tis-620": "windows-874", "iso-8859-11": "windows-874",
  utf8: "utf-8", "unicode-1-1-utf-8": "utf-8", "x-unicode20utf8": "utf-8",
  "iso-8859-2": "iso-8859-2", latin2: "iso-8859-2", "iso8859-2": "iso-8859-2", "cp1250": "windows-1250", "x-cp1250": "windows-1250",
};

function canonicalLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const key = label.trim().toLowerCase();
  const name = WHATWG_ALIASES[key] ?? key;
  // A page cannot really be UTF-16 when its label was readable as ASCII (HTML spec).
  if (name.startsWith("utf-16") || name === "unicode" || name === "ucs-2") return "utf-8";
  if (name === "utf-8") return name;
  return iconv.encodingExists(name) ? name : undefined; // unknown label: fall back to sniffing
}

function decodeAs(bytes: Uint8Array, charset: string): string {
  if (charset === "utf-8") return new TextDecoder("utf-8").decode(bytes);
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), charset);
}

function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function hasMultiByte(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return true;
  return false;
}

function sniffBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return undefined;
}

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? "");
  return match?.[1];
}

function charsetFromMeta(bytes: Uint8Array): string | undefined {
  // ASCII-compatible prescan: latin1 maps every byte to one character, so offsets hold.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString("latin1");
  const xml = /^\s*<\?xml[^>]{0,200}\bencoding\s*=\s*["']([\w.:-]+)/i.exec(head);
  if (xml) return xml[1];
  for (const tag of head.match(/<meta\b[^<>]{0,1000}>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return undefined;
}
