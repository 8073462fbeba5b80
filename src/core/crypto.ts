import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The data directory's secrets. One or more 256-bit master keys, each with a short id
 * derived from the key itself; the newest is current. Purpose keys (field encryption,
 * blind indexes, token signing, DKIM key wrapping…) are derived with HKDF so no two
 * uses share a key. Ciphertexts carry the key id, so a rotation can re-encrypt row by
 * row while both keys are loaded.
 */
export interface MasterKey {
  id: string;
  key: Buffer;
  createdAt: string;
}

interface KeyFile {
  version: 1;
  current: string;
  keys: { id: string; key: string; createdAt: string }[];
}

export const KEY_FILE_NAME = "secret.key";
const CIPHER_VERSION = "v1";

export class KeyringError extends Error {
  override name = "KeyringError";
}

export function keyIdOf(key: Buffer): string {
  return createHmac("sha256", key).update("outreach key id").digest("hex").slice(0, 8);
}

export function decodeMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) {
    throw new KeyringError("OUTREACH_SECRET_KEY must be 32 bytes, as 64 hex characters or base64 (openssl rand -base64 32)");
  }
  return key;
}

export class Keyring {
  private readonly byId = new Map<string, MasterKey>();
  private readonly derived = new Map<string, Buffer>();

  constructor(
    keys: MasterKey[],
    private currentKeyId: string,
  ) {
    for (const k of keys) this.byId.set(k.id, k);
    if (!this.byId.has(currentKeyId)) throw new KeyringError("the current key is missing from the keyring");
  }

  get currentId(): string {
    return this.currentKeyId;
  }

  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  has(keyId: string): boolean {
    return this.byId.has(keyId);
  }

  /** A 32-byte key for one purpose, derived from the given (default: current) master key. */
  purposeKey(purpose: string, keyId = this.currentKeyId): Buffer {
    const cacheKey = `${keyId}\0${purpose}`;
    let key = this.derived.get(cacheKey);
    if (!key) {
      const master = this.byId.get(keyId);
      if (!master) throw new KeyringError(`no key with id ${keyId} is loaded`);
      key = Buffer.from(hkdfSync("sha256", master.key, Buffer.from("outreach/v1"), Buffer.from(purpose), 32));
      this.derived.set(cacheKey, key);
    }
    return key;
  }

  /**
   * AES-256-GCM. `aad` binds the ciphertext to where it lives (workspace, row, column):
   * moved anywhere else, it fails to decrypt. Format: `v1.<keyId>.<base64url(iv|ct|tag)>`.
   */
  encrypt(plaintext: string, aad: string, purpose = "field-encryption"): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.purposeKey(purpose), iv);
    cipher.setAAD(Buffer.from(aad, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const packed = Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
    return `${CIPHER_VERSION}.${this.currentKeyId}.${packed}`;
  }

  decrypt(ciphertext: string, aad: string, purpose = "field-encryption"): string {
    const [version, keyId, packed] = ciphertext.split(".");
    if (version !== CIPHER_VERSION || !keyId || !packed) throw new KeyringError("not a ciphertext of this program");
    if (!this.byId.has(keyId)) {
      throw new KeyringError(`data was encrypted with key ${keyId}, which is not loaded (wrong OUTREACH_SECRET_KEY or key file?)`);
    }
    const raw = Buffer.from(packed, "base64url");
    if (raw.length < 28) throw new KeyringError("ciphertext is truncated");
    const decipher = createDecipheriv("aes-256-gcm", this.purposeKey(purpose, keyId), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    try {
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      throw new KeyringError("ciphertext failed authentication (wrong key, or moved from another record or field)");
    }
  }

  /** The key id a ciphertext was made with. */
  static keyIdOfCiphertext(ciphertext: string): string | undefined {
    return ciphertext.split(".")[1];
  }

  /** Keyed HMAC-SHA256, hex: blind indexes and signatures. */
  hmac(purpose: string, value: string | Buffer, keyId = this.currentKeyId): string {
    return createHmac("sha256", this.purposeKey(purpose, keyId)).update(value).digest("hex");
  }

  /** Sign `payload` for `purpose`: base64url HMAC over it. */
  sign(purpose: string, payload: string): string {
    return createHmac("sha256", this.purposeKey(purpose)).update(payload).digest("base64url");
  }

  /** Constant-time check of `sign` against every loaded key (signatures survive a rotation). */
  verify(purpose: string, payload: string, signature: string): boolean {
    const given = Buffer.from(signature, "base64url");
    for (const keyId of this.byId.keys()) {
      const expected = createHmac("sha256", this.purposeKey(purpose, keyId)).update(payload).digest();
      if (expected.length === given.length && timingSafeEqual(expected, given)) return true;
    }
    return false;
  }
}

function writeKeyFile(path: string, file: KeyFile): void {
  // Write beside, then rename: a crash never leaves a half-written key file.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
  renameSync(tmp, path);
}

function readKeyFile(path: string): KeyFile {
  let parsed: KeyFile;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as KeyFile;
  } catch {
    throw new KeyringError(`the key file ${path} is not readable JSON`);
  }
  if (!parsed || !Array.isArray(parsed.keys) || typeof parsed.current !== "string") {
    throw new KeyringError(`the key file ${path} is malformed`);
  }
  return parsed;
}

function masterKeysOf(file: KeyFile): MasterKey[] {
  return file.keys.map((k) => ({ id: k.id, key: Buffer.from(k.key, "base64"), createdAt: k.createdAt }));
}

/**
 * The keyring for a data directory: `OUTREACH_SECRET_KEY` when set (with
 * `OUTREACH_SECRET_KEY_PREVIOUS` during a rotation), otherwise the key file in the data
 * directory, created with mode 0600 on first use.
 */
export function loadKeyring(dataDir: string, env: NodeJS.ProcessEnv = process.env, now = new Date()): Keyring {
  if (env.OUTREACH_SECRET_KEY) {
    const current = decodeMasterKey(env.OUTREACH_SECRET_KEY);
    const keys: MasterKey[] = [{ id: keyIdOf(current), key: current, createdAt: now.toISOString() }];
    if (env.OUTREACH_SECRET_KEY_PREVIOUS) {
      const previous = decodeMasterKey(env.OUTREACH_SECRET_KEY_PREVIOUS);
      keys.push({ id: keyIdOf(previous), key: previous, createdAt: now.toISOString() });
    }
    return new Keyring(keys, keys[0]!.id);
  }
  const path = join(dataDir, KEY_FILE_NAME);
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    const file: KeyFile = {
      version: 1,
      current: keyIdOf(key),
      keys: [{ id: keyIdOf(key), key: key.toString("base64"), createdAt: now.toISOString() }],
    };
    try {
      // 'wx': if another process created it first, use theirs.
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, JSON.stringify(file, null, 2) + "\n");
      closeSync(fd);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  const file = readKeyFile(path);
  return new Keyring(masterKeysOf(file), file.current);
}

/** Add a new current key to the data directory's key file (rotation step 1). Returns its id. */
export function addKeyToKeyFile(dataDir: string, now = new Date()): string {
  const path = join(dataDir, KEY_FILE_NAME);
  const file = readKeyFile(path);
  const key = randomBytes(32);
  const id = keyIdOf(key);
  file.keys.unshift({ id, key: key.toString("base64"), createdAt: now.toISOString() });
  file.current = id;
  writeKeyFile(path, file);
  return id;
}

/** Drop keys other than the current one from the key file (rotation's last step). */
export function retireOldKeys(dataDir: string): string[] {
  const path = join(dataDir, KEY_FILE_NAME);
  const file = readKeyFile(path);
  const retired = file.keys.filter((k) => k.id !== file.current).map((k) => k.id);
  file.keys = file.keys.filter((k) => k.id === file.current);
  writeKeyFile(path, file);
  return retired;
}
