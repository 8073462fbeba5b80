import { parse as parseCsv } from "csv-parse/sync";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAppError } from "../../../src/core/errors.js";
import { undoFormulaDefusing } from "../../../src/core/spreadsheet-formula.js";
import { leadRowToPlace, LeadRowsImporter, sourceKeyOf } from "../../../src/places/import/importers/lead-rows.js";
import type { ImportItem } from "../../../src/places/import/place-record.js";
import { tempDir } from "../../helpers/data-dir.js";
import { createTestInstance } from "../../helpers/instance.js";

/**
 * A list import reads its file in chunks of whole lines parsed in threads (issue 27, item
 * 4): whatever the chunk size and thread count, the items must be those of the whole file
 * parsed at once, line numbers included. Tiny chunks put every kind of row on a boundary.
 */

async function itemsOf(path: string, format: "csv" | "ndjson", parsing: { threads: number; chunkBytes: number }, bbox?: Parameters<LeadRowsImporter["read"]>[0]["bbox"]) {
  const items: ImportItem[] = [];
  for await (const batch of new LeadRowsImporter(path, format, undefined, parsing).readBatches({ bbox })) items.push(...batch);
  return items;
}

/** Rows → items as the importer promises them: a row's place or its skip, then duplicates and the box, in file order. */
function expectedItems(rows: Array<{ line: number; row?: Record<string, unknown>; error?: string }>, sourceKey: string): ImportItem[] {
  const seen = new Set<string>();
  return rows.map(({ line, row, error }): ImportItem => {
    if (error) return { kind: "skip", reason: "invalid row", detail: `line ${line}: ${error}` };
    let item: ImportItem & { kind: "place" };
    try {
      item = leadRowToPlace(row!, sourceKey);
    } catch (err) {
      const { field, message } = err as { field: string; message: string };
      return { kind: "skip", reason: "invalid row", detail: `line ${line}, field ${field}: ${message}` };
    }
    if (seen.has(item.place.placeId)) return { kind: "skip", reason: "duplicate id", detail: `line ${line}, field placeId: ${item.place.placeId} appears earlier in the file` };
    seen.add(item.place.placeId);
    return item;
  });
}

describe("a list read in chunks of whole lines, parsed in threads", () => {
  it("NDJSON: the items of the file parsed line by line, for any chunk size and thread count", async () => {
    const path = join(tempDir(), "chunked-list.ndjson");
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      if (i % 37 === 5) lines.push("{not json");
      else if (i % 41 === 7) lines.push("   ");
      else if (i % 43 === 9) lines.push("[1, 2]");
      else if (i % 47 === 11) lines.push(JSON.stringify({ name: "Kein Ort", lat: 95, lng: 9 }));
      // Multi-byte characters everywhere, so that chunk ends fall inside them but for the line feed.
      else lines.push(JSON.stringify({ placeId: `p${i % 350}`, name: `Bäckerei Müller ${i} 🥐 — Zürich`, lat: 47 + i / 1000, lng: 9 + i / 1000, categories: ["bakery"] }));
    }
    // A BOM, CRLF line ends, and no line feed after the last line.
    writeFileSync(path, "\uFEFF" + lines.join("\r\n"));
    const expected = expectedItems(
      lines.flatMap((raw, i) => {
        const line = i + 1;
        if (raw.trim() === "") return [];
        try {
          const value = JSON.parse(raw);
          return Array.isArray(value) ? [{ line, error: "must be a JSON object" }] : [{ line, row: value }];
        } catch {
          return [{ line, error: "not valid JSON" }];
        }
      }),
      sourceKeyOf("chunked-list.ndjson"),
    );
    expect(expected.filter((i) => i.kind === "skip" && i.reason === "duplicate id").length).toBeGreaterThan(10);
    for (const parsing of [{ threads: 0, chunkBytes: 1 << 20 }, { threads: 0, chunkBytes: 97 }, { threads: 2, chunkBytes: 301 }, { threads: 3, chunkBytes: 4096 }]) {
      expect(await itemsOf(path, "ndjson", parsing), JSON.stringify(parsing)).toEqual(expected);
    }
  });

  it.each([
    ["CRLF", "\r\n"],
    ["LF", "\n"],
    ["CR alone (old Mac exports)", "\r"],
  ])("CSV with %s line ends: quoted line breaks and quotes across chunk ends, blank lines before the header, line numbers of the file", async (_, eol) => {
    const path = join(tempDir(), "chunked-list.csv");
    const rows: string[] = [];
    for (let i = 0; i < 300; i++) {
      const note = i % 5 === 0 ? `"Hinterhof,${eol}2. Stock ""links""${eol}bei ${i}"` : `Laden ${i}`;
      const lat = i % 29 === 3 ? "nördlich" : String(46 + i / 100);
      rows.push([`r${i % 280}`, `"Müller & Söhne ${i}"`, lat, String(8 + i / 100), note, i % 3 === 0 ? "bakery;key account" : "dentist", "'=1+2"].join(","));
    }
    // Blank lines before the header (not with CR alone: the header check before the import, `csvLayout`, has never taken those).
    const blank = eol === "\r" ? 0 : 2;
    const text = `${`${eol}  `.repeat(blank / 2)}${eol.repeat(blank / 2)}place_id,Name,LAT,lng,description,categories,phone${eol}${rows.join(eol)}${eol}${eol}`;
    writeFileSync(path, text);
    // The whole file at once: csv-parse's own record lines, the formula defusing undone as the importer does.
    const records = parseCsv(text.replace(/^(?:[ \t]*(?:\r\n|\n|\r))+/, ""), {
      columns: (header: string[]) => header.map((h) => ({ place_id: "placeId", Name: "name", LAT: "lat" })[h] ?? h),
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }) as Array<{ record: Record<string, string>; info: { lines: number } }>;
    const expected = expectedItems(
      records.map(({ record, info }) => ({ line: info.lines + blank, row: Object.fromEntries(Object.entries(record).map(([k, v]) => [k, undoFormulaDefusing(v)])) })),
      sourceKeyOf("chunked-list.csv"),
    );
    expect(expected.filter((i) => i.kind === "place").length).toBeGreaterThan(250);
    expect(expected.filter((i) => i.kind === "skip" && i.reason === "invalid row").length).toBeGreaterThan(5);
    expect((expected.find((i) => i.kind === "place") as { place: { description: string } }).place.description).toContain('2. Stock "links"');
    for (const parsing of [{ threads: 0, chunkBytes: 1 << 20 }, { threads: 0, chunkBytes: 53 }, { threads: 2, chunkBytes: 211 }]) {
      expect(await itemsOf(path, "csv", parsing), JSON.stringify(parsing)).toEqual(expected);
    }
  });

  it("a place outside the box is skipped after the duplicate check, across chunks", async () => {
    const path = join(tempDir(), "boxed.ndjson");
    const rows = Array.from({ length: 60 }, (_, i) => JSON.stringify({ placeId: `b${i % 40}`, name: `Ort ${i}`, lat: i < 20 ? 10 : 47.1, lng: 9.5 }));
    writeFileSync(path, rows.join("\n") + "\n");
    const items = await itemsOf(path, "ndjson", { threads: 2, chunkBytes: 64 }, { minLng: 9, minLat: 47, maxLng: 10, maxLat: 48 });
    expect(items.filter((i) => i.kind === "skip" && i.reason === "outside bbox")).toHaveLength(20);
    // Rows 41–60 repeat the IDs of rows 1–20 (outside the box): duplicates all the same.
    expect(items.filter((i) => i.kind === "skip" && i.reason === "duplicate id").map((i) => (i as { detail: string }).detail.split(",")[0])).toEqual(
      Array.from({ length: 20 }, (_, k) => `line ${41 + k}`),
    );
    expect(items.filter((i) => i.kind === "place")).toHaveLength(20);
  });

  it("broken CSV quoting fails the import with a 400 naming the file's line, from any chunk", async () => {
    const path = join(tempDir(), "broken.csv");
    const good = Array.from({ length: 50 }, (_, i) => `n${i},47.1,9.5`);
    writeFileSync(path, ["name,lat,lng", ...good, 'kaputt,"47.1"x,9.5', ...good].join("\n") + "\n");
    for (const parsing of [{ threads: 0, chunkBytes: 1 << 20 }, { threads: 2, chunkBytes: 100 }]) {
      const failure = await itemsOf(path, "csv", parsing).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isAppError(failure), String(failure)).toBe(true);
      expect((failure as Error).message).toMatch(/^broken\.csv is not valid CSV: .*line 52\b/);
    }
  });
  it("Ctrl-C during a list's --replace (threads still parsing) leaves the earlier import as it was; stopped in place, what was written is whole", async () => {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    const path = join(tempDir(), "stop-me.ndjson");
    const list = (n: number, label: string) => Array.from({ length: n }, (_, i) => JSON.stringify({ placeId: `s${i}`, name: `${label} ${i}`, lat: 47 + (i % 100) / 1000, lng: 9 + i / 1e6 })).join("\n") + "\n";
    writeFileSync(path, list(500, "Vorher"));
    await instance.services.placesImport.importFile(path);
    const stored = () => db.prepare("SELECT place_id, name FROM places ORDER BY place_id").all();
    const before = stored();
    writeFileSync(path, list(60_000, "Nachher"));
    for (const replace of [true, false]) {
      const controller = new AbortController();
      const reason = new Error("interrupted");
      const stopped = instance.services.placesImport.importFile(path, {
        replace,
        batchSize: 2000,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.places >= 6000) setImmediate(() => controller.abort(reason));
        },
      });
      await expect(stopped).rejects.toBe(reason);
      if (replace) {
        expect(stored()).toEqual(before);
        expect(instance.services.placesImport.stats().sources[0]).toMatchObject({ status: "complete", place_count: 500 });
      } else {
        // Written batch by batch: whole batches of the new list, the source marked failed for the next run to complete.
        const source = instance.services.placesImport.stats().sources[0]!;
        expect(source.status).toBe("failed");
        expect(source.place_count % 2000 === 0 || source.place_count === 500).toBe(true);
        expect(source.place_count).toBeLessThan(60_000);
      }
    }
    instance.close();
  }, 60_000);
});
