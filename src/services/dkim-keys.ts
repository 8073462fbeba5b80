import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";

const generateKeyPairAsync = promisify(generateKeyPair);

export interface DkimKeyPair {
  /** PKCS#8 PEM: only ever stored encrypted. */
  privateKeyPem: string;
  /** base64 DER SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  publicKeyBase64: string;
}

/** 2048 bits: what Gmail and Yahoo require of bulk senders, and what fits a DNS TXT record. */
export const DKIM_MODULUS_BITS = 2048;

/**
 * A fresh RSA key for one domain. Asynchronous on purpose: generating a 2048-bit key
 * takes ~100 ms or more of CPU, which on libuv's thread pool does not stall other
 * requests (bench/dkim-keygen.mjs measures the difference).
 */
export async function generateDkimKey(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync("rsa", {
    modulusLength: DKIM_MODULUS_BITS,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyBase64: Buffer.from(publicKey).toString("base64") };
}
