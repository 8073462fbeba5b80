import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

/**
 * `contacts import` of the files people really have: written here in their real encodings
 * with iconv-lite, separated as European Excel and "Unicode text" exports separate them.
 */
async function local() {
  const dataDir = tempDir();
  const files = tempDir();
  const env = cliEnv();
  const cli = (args: string[], options: { stdin?: string } = {}) => runCli(["--data-dir", dataDir, ...args], { env, stdin: options.stdin });
  expect((await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"])).code).toBe(0);
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(files, name);
    writeFileSync(path, bytes);
    return path;
  };
  const names = async () =>
    Object.fromEntries(
      (JSON.parse((await cli(["contacts", "list", "--all", "--json"])).stdout).contacts as Array<{ email: string; name: string; tags: string[] }>).map((c) => [c.email, c.name]),
    );
  return { cli, file, files, names };
}

const PEOPLE = [
  ["email", "name", "description"],
  ["mueller@example.de", "Jürgen Müller", "Straße 5, 2. Stock"],
  ["weiss@example.de", "Weiß; Grüße", "café | bar"],
  ["renee@example.fr", "Renée Éclair", "tab\there"],
];

/** Rows joined with `delimiter`; every field quoted, so the other delimiters inside stay text. */
const delimited = (delimiter: string, eol = "\r\n") => PEOPLE.map((row) => row.map((v) => `"${v}"`).join(delimiter)).join(eol) + eol;

const STORED = { "mueller@example.de": "Jürgen Müller", "weiss@example.de": "Weiß; Grüße", "renee@example.fr": "Renée Éclair" };

describe("contacts import reads everyday files", () => {
  it("reads a Windows-1252 file, says on stderr that it guessed, and stores Müller, not M�ller", async () => {
    const { cli, file, names } = await local();
    const path = file("excel-de.csv", iconv.encode(delimited(";"), "windows-1252"));
    const result = await cli(["contacts", "import", path]);
    expect(result.stderr).toContain(`${path}: not UTF-8; read as Windows-1252 (Latin-1)`);
    expect(result.code).toBe(0);
    expect(await names()).toEqual(STORED);
  });

  it("reads UTF-16LE with a BOM (tab-separated, as Excel's 'Unicode text'), UTF-8 with a BOM, and `|` without a word", async () => {
    for (const [name, bytes] of [
      ["unicode.txt", iconv.encode(delimited("\t"), "utf-16le", { addBOM: true })],
      ["bom.csv", iconv.encode(delimited(","), "utf-8", { addBOM: true })],
      ["pipes.csv", Buffer.from(delimited("|", "\n"))],
      ["utf16be.csv", iconv.encode(delimited(";"), "utf-16be", { addBOM: true })],
    ] as const) {
      const { cli, file, names } = await local();
      const result = await cli(["contacts", "import", file(name, bytes)]);
      expect(result.stderr, name).not.toMatch(/UTF-8|Windows-1252/);
      expect(result.stderr, name).toMatch(/imported 3 contacts; 0 duplicate, 0 invalid/);
      expect(result.code, name).toBe(0);
      expect(await names(), name).toEqual(STORED);
    }
  });

  it("sniffs `;` with quoted fields that hold commas and line breaks, from stdin too", async () => {
    const { cli, names } = await local();
    const text = 'Email;Name;Description\nhans@example.de;"Hans, Jr.";"line one\nline two, with; all"\nanna@example.de;Anna;plain\n';
    const result = await cli(["contacts", "import", "-"], { stdin: text });
    expect(result.code).toBe(0);
    expect(await names()).toEqual({ "hans@example.de": "Hans, Jr.", "anna@example.de": "Anna" });
  });

  it("takes --encoding over the guess, and refuses an encoding it does not know", async () => {
    const { cli, file, names } = await local();
    const path = file("mac.csv", iconv.encode("email,name\nmueller@example.de,Jürgen Müller\n", "macintosh"));
    const forced = await cli(["contacts", "import", path, "--encoding", "macintosh"]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).not.toMatch(/Windows-1252/);
    expect(await names()).toEqual({ "mueller@example.de": "Jürgen Müller" });
    const unknown = await cli(["contacts", "import", path, "--encoding", "klingon-8"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("error: --encoding klingon-8: unknown encoding (for example utf-8, windows-1252, latin1, utf-16le, macintosh)\n");
  });

  it("refuses a binary file, a folder, an empty file and a missing one with one line and exit 2", async () => {
    const { cli, file, files, names } = await local();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]), Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256))]);
    const picture = file("photo.csv", png);
    const folder = join(files, "exports");
    mkdirSync(folder);
    const cases: Array<[string, string]> = [
      [picture, `error: ${picture}: not a text file (it holds binary data); expected CSV, NDJSON or JSON text\n`],
      [folder, `error: ${folder}: is a folder; give a file in it\n`],
      [file("empty.csv", ""), `error: ${join(files, "empty.csv")}: empty, nothing to import\n`],
      [join(files, "nope.csv"), `error: ${join(files, "nope.csv")}: no such file\n`],
    ];
    for (const [path, message] of cases) {
      const result = await cli(["contacts", "import", path]);
      expect(result.stderr, path).toBe(message);
      expect(result.code, path).toBe(2);
    }
    expect(await names()).toEqual({});
  });

  it("names the columns and the delimiter it found when there is no email column", async () => {
    const { cli, file } = await local();
    const path = file("wrong.csv", "Mail;Name\nx@example.de;X\n");
    const result = await cli(["contacts", "import", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: ${path}: the CSV header has no "email" column (found: "mail", "name", separated by ";")\n`);
  });
});
