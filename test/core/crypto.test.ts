import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addKeyToKeyFile, KEY_FILE_NAME, Keyring, KeyringError, loadKeyring, retireOldKeys } from "../../src/core/crypto.js";
import { tempDir } from "../helpers/data-dir.js";

describe("keyring", () => {
  it("creates a 0600 key file on first use and loads the same key afterwards", () => {
    const dir = tempDir();
    const first = loadKeyring(dir, {});
    const mode = statSync(join(dir, KEY_FILE_NAME)).mode & 0o777;
    expect(mode).toBe(0o600);
    const again = loadKeyring(dir, {});
    expect(again.currentId).toBe(first.currentId);
    expect(again.decrypt(first.encrypt("hello", "aad"), "aad")).toBe("hello");
  });

  it("binds ciphertexts to their associated data: moved elsewhere they fail", () => {
    const keyring = loadKeyring(tempDir(), {});
    const ct = keyring.encrypt("ada@example.com", "team_1|ct_1|email");
    expect(ct).toMatch(new RegExp(`^v1\\.${keyring.currentId}\\.`));
    expect(keyring.decrypt(ct, "team_1|ct_1|email")).toBe("ada@example.com");
    expect(() => keyring.decrypt(ct, "team_1|ct_2|email")).toThrow(KeyringError);
    expect(() => keyring.decrypt(ct, "team_1|ct_1|name")).toThrow(/failed authentication/);
  });

  it("uses OUTREACH_SECRET_KEY when set, and a wrong key fails with a clear error", () => {
    const key = randomBytes(32).toString("base64");
    const keyring = loadKeyring(tempDir(), { OUTREACH_SECRET_KEY: key });
    const ct = keyring.encrypt("secret", "x");
    const other = loadKeyring(tempDir(), { OUTREACH_SECRET_KEY: randomBytes(32).toString("hex") });
    expect(() => other.decrypt(ct, "x")).toThrow(/not loaded \(wrong OUTREACH_SECRET_KEY or key file\?\)/);
    expect(() => loadKeyring(tempDir(), { OUTREACH_SECRET_KEY: "short" })).toThrow(/32 bytes/);
  });

  it("decrypts old ciphertexts during a rotation and drops the old key afterwards", () => {
    const dir = tempDir();
    const before = loadKeyring(dir, {});
    const oldCt = before.encrypt("old", "a");
    const newId = addKeyToKeyFile(dir);
    const during = loadKeyring(dir, {});
    expect(during.currentId).toBe(newId);
    expect(during.keyIds).toHaveLength(2);
    expect(during.decrypt(oldCt, "a")).toBe("old");
    expect(Keyring.keyIdOfCiphertext(during.encrypt("new", "a"))).toBe(newId);
    expect(retireOldKeys(dir)).toEqual([before.currentId]);
    expect(() => loadKeyring(dir, {}).decrypt(oldCt, "a")).toThrow(KeyringError);
    expect(statSync(join(dir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, KEY_FILE_NAME), "utf8")).keys).toHaveLength(1);
  });

  it("derives different keys per purpose and signs verifiably", () => {
    const keyring = loadKeyring(tempDir(), {});
    expect(keyring.purposeKey("a").equals(keyring.purposeKey("b"))).toBe(false);
    expect(keyring.hmac("blind", "x")).toBe(keyring.hmac("blind", "x"));
    expect(keyring.hmac("blind", "x")).not.toBe(keyring.hmac("other", "x"));
    const sig = keyring.sign("page-token", "payload");
    expect(keyring.verify("page-token", "payload", sig)).toBe(true);
    expect(keyring.verify("page-token", "payload2", sig)).toBe(false);
    expect(keyring.verify("other", "payload", sig)).toBe(false);
  });
});
