import { describe, expect, it } from "vitest";
import { quickPlainText, readMessageContent } from "../../../src/providers/imap/message-content.js";

const crlf = (lines: string[]) => Buffer.from(lines.join("\r\n"), "latin1");

const gmail = crlf([
  "From: Ed <ed@clinic-ed.test>",
  "Subject: Re: Hello Ed",
  "MIME-Version: 1.0",
  'Content-Type: multipart/alternative; boundary="000000000000abc"',
  "",
  "--000000000000abc",
  'Content-Type: text/plain; charset="UTF-8"',
  "Content-Transfer-Encoding: base64",
  "",
  Buffer.from("Gerne, schicken Sie mir die Preise – danke!\r\n\r\nOn Mon, Acme wrote:\r\n> Dear Ed\r\n").toString("base64"),
  "--000000000000abc",
  'Content-Type: text/html; charset="UTF-8"',
  "",
  "<div>Gerne</div>",
  "--000000000000abc--",
  "",
]);

const outlook = crlf([
  "From: Fritz <fritz@praxis.test>",
  "Subject: AW: Hello",
  "Content-Type: multipart/alternative;",
  '\tboundary="_000_VI1PR"',
  "",
  "--_000_VI1PR",
  'Content-Type: text/plain; charset="Windows-1252"',
  "Content-Transfer-Encoding: quoted-printable",
  "",
  "Gr=FC=DFe, bitte rufen Sie an. Eine sehr lange Zeile, die umbrochen wird, weil sie l=",
  "=E4nger ist.",
  "",
  "________________________________",
  "Von: Acme",
  "--_000_VI1PR",
  'Content-Type: text/html; charset="Windows-1252"',
  "",
  "<p>x</p>",
  "--_000_VI1PR--",
]);

const plain = Buffer.from("From: a@b.test\r\nSubject: Re: x\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nJa, gerne – Grüße\r\n", "utf8");
const htmlOnly = crlf(["From: a@b.test", "Content-Type: text/html; charset=utf-8", "", "<p>Hi</p>"]);
const nested = crlf(["From: a@b.test", 'Content-Type: multipart/mixed; boundary="m"', "", "--m", 'Content-Type: multipart/alternative; boundary="a"', "", "--a", "Content-Type: text/plain", "", "x", "--a--", "--m--"]);

describe("the plain text of a reply without mailparser", () => {
  it.each([
    ["Gmail (multipart/alternative, base64 UTF-8)", gmail],
    ["Outlook (quoted-printable Windows-1252, soft line breaks)", outlook],
    ["a text/plain 8-bit UTF-8 message", plain],
  ])("%s: the same text mailparser reads", async (_name, source) => {
    const quick = quickPlainText(source);
    expect(quick).toBeDefined();
    expect(quick).toBe((await readMessageContent(source)).text);
  });

  it("leaves HTML-only and nested multiparts to mailparser", () => {
    expect(quickPlainText(htmlOnly)).toBeUndefined();
    expect(quickPlainText(nested)).toBeUndefined();
  });
});
