import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";

const generateKeyPairAsync = promisify(generateKeyPair);

export interface DkimKeyPair {
  /** PKCS#8 PEM: only ever stored encrypted. */
  privateKeyPem: string;
  /** base64 DER SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  publicKeyBase64: string;
}

/** Makes a key pair for a new sending domain. Injected (`ServiceDeps.dkimKeys`): tests use a fast one. */
export type DkimKeyGenerator = () => Promise<DkimKeyPair>;

/** 2048 bits: what Gmail and Yahoo require of bulk senders, and what fits a DNS TXT record. */
export const DKIM_MODULUS_BITS = 2048;

/** An RSA key pair of `modulusLength` bits in the shapes a sending domain stores and publishes. */
export async function generateRsaKeyPair(modulusLength: number): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync("rsa", {
    modulusLength,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyBase64: Buffer.from(publicKey).toString("base64") };
}

/**
 * An Ed25519 key pair (RFC 8463) for a domain that opted in to the second signature: the
 * private key as PKCS#8 PEM (stored encrypted like the RSA one), the public key as the
 * bare 32 bytes in base64, which is what `p=` holds for `k=ed25519` (RFC 8463 §4), not
 * the SubjectPublicKeyInfo an RSA record carries. Generating one takes microseconds.
 */
export async function generateEd25519DkimKey(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync("ed25519", {
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  // An Ed25519 SubjectPublicKeyInfo is a fixed 12-byte header and then the 32-byte key.
  return { privateKeyPem: privateKey, publicKeyBase64: Buffer.from(publicKey).subarray(-32).toString("base64") };
}

/**
 * A fresh 2048-bit RSA key for one domain. Asynchronous on purpose: generating one takes
 * ~100 ms or more of CPU, which on libuv's thread pool does not stall other requests
 * (bench/sending-domains.mjs measures the difference).
 */
export const generateDkimKey: DkimKeyGenerator = () => generateRsaKeyPair(DKIM_MODULUS_BITS);
