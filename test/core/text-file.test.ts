import { writeFileSync } from "node:fs";
import { join } from "node:path";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { decodeText, detectEncoding, looksBinary, readTextHead, sniffDelimiter } from "../../src/core/text-file.js";
import { tempDir } from "../helpers/data-dir.js";

describe("sniffDelimiter", () => {
  it("picks the delimiter that splits the header and keeps the field count, quotes respected", () => {
    expect(sniffDelimiter("a,b,c\n1,2,3\n")).toBe(",");
    expect(sniffDelimiter('name;note\n"Müller, Hans";"a, b, c"\n"x";"1,5"\n')).toBe(";");
    expect(sniffDelimiter('name\tnote\n"a;b|c"\t"d,e"\nf\tg\n')).toBe("\t");
    expect(sniffDelimiter("name|city\nAcme, Inc.|Vaduz\nB; C|Schaan\n")).toBe("|");
    // A quoted line break is part of the field, not a new record.
    expect(sniffDelimiter('email;name\nx@y.z;"line one\nline, two, three"\nq@y.z;Q\n')).toBe(";");
  });

  it("prefers the delimiter whose rows agree with the header over one that only splits the header", () => {
    // The header splits on "," too (into 2), but only ";" gives every row the header's 4 fields.
    expect(sniffDelimiter("name;lat;lng;note, extra\nA;47,1;9,5;x\nB;47,2;9,6;y\n")).toBe(";");
  });

  it("falls back to a comma for one column, and ignores a cut-off last line of a head", () => {
    expect(sniffDelimiter("email\na@b.c\n")).toBe(",");
    expect(sniffDelimiter("a;b\n1;2\n3;4\n5", { complete: false })).toBe(";");
  });
});

describe("encodings", () => {
  it("reads a BOM, valid UTF-8, and otherwise Windows-1252 with a notice naming the file", () => {
    expect(detectEncoding(iconv.encode("Müller", "utf-16le", { addBOM: true }), "f")).toEqual({ encoding: "utf-16le" });
    expect(detectEncoding(iconv.encode("Müller", "utf-16be", { addBOM: true }), "f")).toEqual({ encoding: "utf-16be" });
    expect(detectEncoding(Buffer.from("\ufeffMüller"), "f")).toEqual({ encoding: "utf-8" });
    expect(detectEncoding(Buffer.from("Müller"), "f")).toEqual({ encoding: "utf-8" });
    const guessed = detectEncoding(iconv.encode("Müller Straße €", "windows-1252"), "people.csv");
    expect(guessed.encoding).toBe("windows-1252");
    expect(guessed.notice).toMatch(/^people\.csv: not UTF-8; read as Windows-1252/);
    expect(decodeText(iconv.encode("Müller Straße €", "windows-1252"), "f").text).toBe("Müller Straße €");
    expect(decodeText(iconv.encode("\ufeffRenée", "utf-16le"), "f").text).toBe("Renée");
  });

  it("judges a file's head as UTF-8 even when its last character is cut in half", () => {
    const dir = tempDir();
    const path = join(dir, "big.csv");
    // "ü" is two bytes in UTF-8: place one across the 256 KiB boundary of the head.
    const filler = "a".repeat(256 * 1024 - 1);
    writeFileSync(path, filler + "ü and more\n");
    const head = readTextHead(path);
    expect(head.encoding).toBe("utf-8");
    expect(head.notice).toBeUndefined();
    expect(head.whole).toBe(false);
  });

  it("calls text with NULs or many control characters binary, and ordinary text not", () => {
    expect(looksBinary("name,city\r\nA\tB\n")).toBe(false);
    expect(looksBinary("\u0089PNG\r\n\u001a\n\u0000\u0000")).toBe(true);
    expect(looksBinary("ab\u0001\u0002\u0003\u0004cd")).toBe(true);
    expect(() => decodeText(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), "x.zip")).toThrow(/x\.zip: not a text file/);
  });
});
