import { ImapFlow } from "imapflow";
import { describe, expect, it } from "vitest";
import { multiAppend } from "../helpers/dovecot.js";
import { mail, testDovecot } from "../helpers/mailbox.js";

// The bench fills its 10,000-message mailbox with this helper: it must deliver every message,
// in order and byte for byte, and say so when the server refuses.
describe("multiAppend (the bench's mailbox fill, RFC 3502 MULTIAPPEND)", () => {
  it("delivers every message in order, byte for byte, across several APPEND commands", async () => {
    const dovecot = await testDovecot();
    const texts = Array.from({ length: 23 }, (_, i) => mail({ From: `s${i}@x.test`, Subject: `Offer ${i}`, "Message-ID": `<m${i}@x.test>` }, `Body ${i} with "quotes" and ü`));
    await multiAppend(dovecot, texts, { chunk: 5 });
    const client = new ImapFlow({ host: "127.0.0.1", port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.pass }, logger: false, disableAutoIdle: true });
    await client.connect();
    try {
      const box = await client.mailboxOpen("INBOX", { readOnly: true });
      expect(box.exists).toBe(23);
      const sources: string[] = [];
      for await (const m of client.fetch("1:*", { uid: true, source: true }, { uid: true })) sources.push(m.source!.toString("utf8"));
      expect(sources).toEqual(texts);
    } finally {
      await client.logout();
    }
  });

  it("rejects with the server's answer when a folder does not exist", async () => {
    const dovecot = await testDovecot();
    await expect(multiAppend(dovecot, [mail({ Subject: "x" }, "y")], { mailbox: "Nowhere" })).rejects.toThrow(/APPEND into Nowhere failed: .*NO/);
  });
});
