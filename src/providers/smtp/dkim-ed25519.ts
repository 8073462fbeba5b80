import { createHash, createPrivateKey, sign, type KeyObject } from "node:crypto";

/**
 * A second DKIM signature, Ed25519-SHA256 (RFC 8463), added to a message nodemailer has
 * already composed and RSA-signed. nodemailer signs with RSA only, so this one is ours:
 * relaxed/relaxed canonicalization (RFC 6376 §3.4.2, §3.4.4) over the finished bytes,
 * SHA-256 of the header data signed with PureEdDSA (RFC 8463 §3). The new header goes on
 * top; neither signature covers DKIM-Signature fields, so each verifies on its own.
 */

export interface Ed25519DkimKey {
  domainName: string;
  keySelector: string;
  /** PKCS#8 PEM, or a key object made from it. */
  privateKey: string | KeyObject;
}

const CRLF = "\r\n";

/** RFC 6376 §3.4.4: trailing whitespace of each line dropped, runs of it made one space, empty lines at the end removed. */
export function relaxedBody(body: string): string {
  const lines = body.split(CRLF).map((line) => line.replace(/[ \t]+/g, " ").replace(/ $/, ""));
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines.length ? lines.join(CRLF) + CRLF : "";
}

/** RFC 6376 §3.4.2: the name lower-cased, the value unfolded, runs of whitespace made one space, none around the colon or at the end. */
export function relaxedHeader(field: string): string {
  const colon = field.indexOf(":");
  const name = field.slice(0, colon).trim().toLowerCase();
  const value = field
    .slice(colon + 1)
    .replace(/\r\n/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
  return `${name}:${value}`;
}

/** The header block's fields, each with its folded continuation lines, as written. */
function headerFields(head: string): string[] {
  const fields: string[] = [];
  for (const line of head.split(CRLF)) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && fields.length) fields[fields.length - 1] += CRLF + line;
    else if (line) fields.push(line);
  }
  return fields;
}

/** DKIM tag values may not hold `;` or controls; the caller's names are ours, but stay safe. */
const tagValue = (value: string) => value.replace(/[\x00-\x20\x7f;=]/g, "");

const keyObjects = new Map<string, KeyObject>();

function keyObjectOf(key: string | KeyObject): KeyObject {
  if (typeof key !== "string") return key;
  let object = keyObjects.get(key);
  if (!object) {
    object = createPrivateKey(key);
    if (object.asymmetricKeyType !== "ed25519") throw new Error(`an Ed25519 DKIM key was expected, got ${object.asymmetricKeyType}`);
    // A few sending domains per process: bounded anyway.
    if (keyObjects.size >= 64) keyObjects.delete(keyObjects.keys().next().value!);
    keyObjects.set(key, object);
  }
  return object;
}

/**
 * `raw` with an Ed25519-SHA256 DKIM-Signature on top, covering `signedHeaders` (a
 * colon-separated list; names absent from the message are left out of `h=`, the last
 * instance of a repeated one is signed, as RFC 6376 §5.4.2 has it).
 */
export function addEd25519Signature(raw: Buffer, key: Ed25519DkimKey, signedHeaders: string): Buffer {
  const text = raw.toString("latin1");
  const split = text.indexOf(CRLF + CRLF);
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? "" : text.slice(split + 4);
  const bodyHash = createHash("sha256").update(relaxedBody(body), "latin1").digest("base64");

  const fields = headerFields(head);
  const byName = new Map<string, string>();
  for (const field of fields) byName.set(field.slice(0, field.indexOf(":")).trim().toLowerCase(), field);
  const names = signedHeaders
    .split(":")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n && byName.has(n));

  const tags = [
    "v=1",
    "a=ed25519-sha256",
    "c=relaxed/relaxed",
    `d=${tagValue(key.domainName)}`,
    `s=${tagValue(key.keySelector)}`,
    `bh=${bodyHash}`,
    `h=${names.join(":")}`,
  ];
  // Folded so no line passes 78 characters; relaxed canonicalization unfolds it again.
  const unsigned = `DKIM-Signature: ${tags.slice(0, 5).join("; ")};${CRLF} ${tags[5]};${CRLF} ${tags[6]};${CRLF} b=`;
  const signedData = names.map((n) => relaxedHeader(byName.get(n)!) + CRLF).join("") + relaxedHeader(unsigned);
  const digest = createHash("sha256").update(signedData, "latin1").digest();
  const signature = sign(null, digest, keyObjectOf(key.privateKey)).toString("base64");
  return Buffer.concat([Buffer.from(unsigned + signature + CRLF, "latin1"), raw]);
}
