import { describe, expect, it } from "vitest";
import { decodeWords, isFreemailDomain } from "../../src/services/replies/reply-matching.js";
import { addressOf, baseSubject, isAutoReply, isDeliveryStatus, messageIdsIn, replySnippet } from "../../src/services/replies/reply-text.js";
import { parseHeaderBlock } from "../../src/providers/imap/mailbox-reader.js";
import { imapSettings } from "../../src/services/replies/imap-config.js";

const headers = (block: string) => parseHeaderBlock(block);

describe("reply subjects", () => {
  it.each([
    ["Re: Hello", "hello", true],
    ["RE: RE: Hello", "hello", true],
    ["AW: RE: Hello", "hello", true],
    ["Re[2]: Hello", "hello", true],
    ["Re(3): Hello", "hello", true],
    ["[EXT] Re: Hello", "hello", true],
    ["SV: Hello", "hello", true],
    ["VS: Hello", "hello", true],
    ["R: Hello", "hello", true],
    ["Antw: Hello", "hello", true],
    ["Réf : Hello", "hello", true],
    ["Rif: Hello", "hello", true],
    ["Odp: Hello", "hello", true],
    ["Ynt: Hello", "hello", true],
    ["Vá: Hello", "hello", true],
    ["ΑΠ: Hello", "hello", true],
    ["回复：Hello", "hello", true],
    ["答复: Hello", "hello", true],
    ["返信: Hello", "hello", true],
    ["Automatic reply: Hello", "hello", true],
    ["Fwd: Hello", "hello", false],
    ["WG: Hello", "hello", false],
    ["Hello", "hello", false],
    ["Re: Hello   Anna ", "hello anna", true],
    ["Regarding: Hello", "regarding: hello", false],
  ])("%s → %s (a reply: %s)", (subject, base, replied) => {
    expect(baseSubject(subject)).toEqual({ base, replied });
  });
});

describe("auto-replies and DSNs", () => {
  it("recognises RFC 3834 and the vendors' headers, and out-of-office subjects", () => {
    expect(isAutoReply(headers("Auto-Submitted: auto-replied"), "Re: x")).toBe(true);
    expect(isAutoReply(headers("Auto-Submitted: auto-generated"), "x")).toBe(true);
    expect(isAutoReply(headers("Auto-Submitted: no"), "Re: x")).toBe(false);
    expect(isAutoReply(headers("X-Autoreply: yes"), "Re: x")).toBe(true);
    expect(isAutoReply(headers("X-Autorespond: on"), "Re: x")).toBe(true);
    expect(isAutoReply(headers("Precedence: bulk"), "Re: x")).toBe(true);
    expect(isAutoReply(headers("Precedence: list"), "Re: x")).toBe(false);
    expect(isAutoReply(headers("X-MS-Exchange-Inbox-Rules-Loop: a@b.test"), "Re: x")).toBe(true);
    expect(isAutoReply(headers("From: a@b.test"), "Abwesenheitsnotiz: x")).toBe(true);
    expect(isAutoReply(headers("From: a@b.test"), "Re: x")).toBe(false);
  });

  it("knows a DSN by its content type", () => {
    expect(isDeliveryStatus(headers('Content-Type: multipart/report; report-type=delivery-status;\r\n boundary="b"'))).toBe(true);
    expect(isDeliveryStatus(headers("Content-Type: multipart/report; report-type=disposition-notification"))).toBe(false);
    expect(isDeliveryStatus(headers("Content-Type: text/plain"))).toBe(false);
  });
});

describe("header values", () => {
  it("reads Message-ID lists, addresses and encoded words", () => {
    expect(messageIdsIn("<a@b> <c@d>\r\n <e@f>")).toEqual(["<a@b>", "<c@d>", "<e@f>"]);
    expect(messageIdsIn(undefined)).toEqual([]);
    expect(addressOf('"Müller, Fritz" <Fritz@Praxis.test>')).toBe("fritz@praxis.test");
    expect(addressOf("anna@praxis.test")).toBe("anna@praxis.test");
    expect(addressOf("undisclosed-recipients:;")).toBeUndefined();
    expect(decodeWords("=?utf-8?Q?AW:_Hallo_M=C3=BCller?=")).toBe("AW: Hallo Müller");
    expect(decodeWords("=?UTF-8?B?UmU6IEjDqWxsbw==?=")).toBe("Re: Héllo");
    expect(decodeWords("  Re: Hello = ?not encoded?  ")).toBe("  Re: Hello = ?not encoded?  ");
  });

  it("knows free-mail domains", () => {
    expect(isFreemailDomain("gmail.com")).toBe(true);
    expect(isFreemailDomain("GMX.de")).toBe(true);
    expect(isFreemailDomain("praxis-kern.de")).toBe(false);
  });
});

describe("snippets", () => {
  it.each([
    ["Thanks!\n\nOn Mon, 23 Nov 2026 at 10:00, Acme <a@b.test> wrote:\n> hi", "Thanks!"],
    ["Danke\n\nAm 23.11.2026 um 10:00 schrieb Acme <a@b.test>:\n> hi", "Danke"],
    ["Merci\n\nLe lun. 23 nov. 2026 à 10:00, Acme <a@b.test> a écrit :\n> hi", "Merci"],
    ["Yes\n\n-----Original Message-----\nFrom: Acme\nSent: Monday", "Yes"],
    ["Ja\n\n________________________________\nVon: Acme\nGesendet: Montag", "Ja"],
    ["Ok\nVon: Acme <a@b.test>\nGesendet: Montag", "Ok"],
    ["Sure\n> quoted\n> more", "Sure"],
    ["Fine\n\nOn Mon, 23 Nov 2026 at 10:00, Acme <a@b.test>\nwrote:\n> hi", "Fine"],
  ])("%j → %j", (text, snippet) => {
    expect(replySnippet(text)).toBe(snippet);
  });

  it("is at most 300 characters", () => {
    const s = replySnippet("word ".repeat(200));
    expect(s.length).toBe(300);
    expect(s.endsWith("…")).toBe(true);
  });
});

describe("OUTREACH_IMAP_URL", () => {
  const fail = (m: string) => new Error(m);
  it("reads scheme, URL-decoded credentials, port and mailbox", () => {
    expect(imapSettings({ OUTREACH_IMAP_URL: "imaps://replies%40acme.test:p%40ss%2Fw@imap.acme.test/Replies%2F2026" }, fail)).toEqual({
      host: "imap.acme.test",
      port: 993,
      secure: true,
      user: "replies@acme.test",
      pass: "p@ss/w",
      mailbox: "Replies/2026",
    });
    expect(imapSettings({ OUTREACH_IMAP_URL: "imap://u:p@127.0.0.1:1143" }, fail)).toMatchObject({ port: 1143, secure: false, mailbox: "INBOX" });
    expect(imapSettings({ OUTREACH_IMAP_URL: "" }, fail)).toBeUndefined();
  });

  it("refuses what it cannot use, naming the variable and hiding the password", () => {
    expect(() => imapSettings({ OUTREACH_IMAP_URL: "https://u:secret@x.test" }, fail)).toThrow(/OUTREACH_IMAP_URL must be imap:\/\//);
    expect(() => imapSettings({ OUTREACH_IMAP_URL: "https://u:secret@x.test" }, fail)).not.toThrow(/secret/);
    expect(() => imapSettings({ OUTREACH_IMAP_URL: "imap://x.test/INBOX" }, fail)).toThrow(/user and password/);
    expect(() => imapSettings({ OUTREACH_IMAP_URL: "not a url" }, fail)).toThrow(/must be a URL/);
  });
});
