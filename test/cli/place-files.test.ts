import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import iconv from "iconv-lite";
import { describe, expect, test } from "vitest";
import { openDatabase } from "../../src/store/db.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

/** `places import` of a user's own list as spreadsheets save it: `;`, Windows-1252, UTF-16. */
function setup() {
  const env = cliEnv();
  const dir = tempDir();
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const dataDir = tempDir();
  const cli = (args: string[]) => runCli(["--data-dir", dataDir, ...args], { env });
  /** The names stored, as the database holds them. */
  const names = () => {
    const db = openDatabase(join(dataDir, "outreach.db"));
    try {
      return (db.prepare("SELECT name FROM places ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    } finally {
      db.close();
    }
  };
  return { cli, file, dir, names };
}

const EUROPEAN = ['Name;Lat;Lng;City;Categories', '"Bäckerei Müller; Söhne";47,14;9,52;Vaduz;bakery', 'Café Größe;47.141;9.521;Vaduz;"cafe|bakery"'].join("\r\n") + "\r\n";

describe("places import reads everyday CSV files", () => {
  test("a `;` file from a German Excel in Windows-1252: imported, names intact, the guess said on stderr", async () => {
    const { cli, file, names } = setup();
    // "47,14" (a decimal comma) is a bad latitude, said by row; the other row imports.
    const path = file("kunden.csv", iconv.encode(EUROPEAN.replace("47,14;9,52", "47.14;9.52"), "windows-1252"));
    const result = await cli(["places", "import", path, "--json"]);
    expect(result.stderr).toContain(`${path}: not UTF-8; read as Windows-1252 (Latin-1)`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ file: "kunden.csv", added: 2, total: 2 }]);
    expect(names()).toEqual(["Bäckerei Müller; Söhne", "Café Größe"]);
  });

  test("UTF-16LE with a BOM, tab-separated: imported without a notice", async () => {
    const { cli, file, names } = setup();
    const text = ["", '"name"\tlat\tlng', "Zahnarzt Ösch\t47.14\t9.52", '"Praxis, Dr. Frick"\t47.15\t9.53'].join("\r\n");
    const result = await cli(["places", "import", file("praxen.csv", iconv.encode(text, "utf-16le", { addBOM: true })), "--json"]);
    expect(result.stderr).not.toMatch(/Windows-1252/);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ added: 2, total: 2 }]);
    expect(names()).toEqual(["Praxis, Dr. Frick", "Zahnarzt Ösch"]);
  });

  test("--encoding reads the file as that encoding, and a re-import with another one is not 'unchanged'", async () => {
    const { cli, file, names } = setup();
    const path = file("mac.csv", iconv.encode("name,lat,lng\nGärtnerei Öhri,47.14,9.52\n", "macintosh"));
    const guessed = await cli(["places", "import", path, "--json"]);
    expect(guessed.stderr).toContain("not UTF-8; read as Windows-1252");
    expect(names()).not.toEqual(["Gärtnerei Öhri"]);
    const forced = await cli(["places", "import", path, "--encoding", "macintosh", "--json"]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).not.toContain("Windows-1252");
    expect(JSON.parse(forced.stdout)).toMatchObject([{ unchangedFile: false, total: 1 }]);
    expect(names()).toEqual(["Gärtnerei Öhri"]);
    const unknown = await cli(["places", "import", path, "--encoding", "ebcdic-klingon"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--encoding ebcdic-klingon: unknown encoding");
  });

  test("a header without coordinates is refused before anything is imported, naming the columns found", async () => {
    const { cli, file } = setup();
    const path = file("addresses.csv", "Firma;Strasse;Ort\nAcme;Hauptstr. 1;Vaduz\n");
    const result = await cli(["places", "import", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: addresses.csv: no row can be a place: each needs a name, lat and lng column, and name, lat, lng are missing; columns found were "Firma", "Strasse", "Ort" (separated by ";")\n',
    );
    expect((await cli(["places", "stats", "--json"])).stdout).not.toContain("addresses.csv");
  });

  test("rows that all fail say why and exit 2 instead of `added 0`", async () => {
    const { cli, file } = setup();
    const path = file("decimal-commas.csv", EUROPEAN.replace("47.141;9.521", "47,141;9,521"));
    const result = await cli(["places", "import", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: " + path + ': no row became a place: all 2 rows were rejected (line 2, field lat: lat must be a number between -90 and 90 (got "47,14"), …)\n');
  });

  test("a binary file, a folder and an empty CSV: one line each, exit 2", async () => {
    const { cli, file, dir } = setup();
    const png = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "latin1"), Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 131) % 256))]);
    const picture = file("map.csv", png);
    const folder = join(dir, "lists.csv");
    mkdirSync(folder);
    const empty = file("empty.csv", "");
    for (const [path, message] of [
      [picture, `error: ${picture}: not a text file (it holds binary data); expected CSV, NDJSON or JSON text\n`],
      [folder, `error: ${folder}: is a folder; give a file in it\n`],
      [empty, "error: empty.csv: empty, no places to import\n"],
    ]) {
      const result = await cli(["places", "import", path!]);
      expect(result.stderr, path).toBe(message);
      expect(result.code, path).toBe(2);
    }
  });
});
