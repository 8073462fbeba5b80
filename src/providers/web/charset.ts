import { TextDecoder } from "node:util";

/**
 * Turning a page's bytes into text, as browsers do (WHATWG encoding sniffing, reduced):
 * a byte-order mark wins, then the `charset` of the Content-Type header, then a
 * `<meta charset>` or `<meta http-equiv="content-type">` in the first 4 KiB, and
 * otherwise UTF-8 when the bytes are valid UTF-8, else windows-1252 (which is what
 * browsers use for "ISO-8859-1" labels too).
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): { text: string; charset: string } {
  const bom = sniffBom(bytes);
  if (bom) return { text: new TextDecoder(bom).decode(bytes), charset: bom };
  const declared = charsetFromContentType(contentType) ?? charsetFromMeta(bytes);
  const decoder = declared ? decoderFor(declared) : undefined;
  if (decoder) return { text: decoder.decode(bytes), charset: decoder.encoding };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), charset: "utf-8" };
  } catch {
    return { text: new TextDecoder("windows-1252").decode(bytes), charset: "windows-1252" };
  }
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
  const head = Buffer.from(bytes.subarray(0, 4096)).toString("latin1");
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return undefined;
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    const decoder = new TextDecoder(label.trim().toLowerCase());
    // A page cannot really be UTF-16 when its meta tag was readable as ASCII (HTML spec).
    return decoder.encoding.startsWith("utf-16") ? new TextDecoder("utf-8") : decoder;
  } catch {
    return undefined; // unknown label: fall back to sniffing
  }
}
