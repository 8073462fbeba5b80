import { parse } from "csv-parse/sync";

/**
 * Reads what people import contacts from: the lead search's `--csv`, `--ndjson` (the raw
 * stream) and `--json` output, plain NDJSON or JSON of leads or contacts, and a plain
 * contact CSV (email,name,phone,description,tags,status). Every record keeps the row
 * number the user sees in the file, so a report can point at it.
 */
export interface ImportRecord {
  /** Where it is in the file: `row 7` (CSV, header is row 1), `line 3`, `line 2, lead 5`. */
  where: string;
  /** The contact to create, or why the record cannot be one. */
  contact?: Record<string, unknown>;
  /** A lead without an email: not a contact, reported as skipped. */
  skipped?: string;
  /** The record could not be read at all (bad JSON line). */
  unreadable?: string;
}

export class ImportFormatError extends Error {
  override name = "ImportFormatError";
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function blankToUndefined(v: unknown): unknown {
  return typeof v === "string" && v.trim() === "" ? undefined : v;
}

/** Tags in a CSV cell or a JSON field: an array, or a string split on ";" "|" or ",". */
function tagsOf(v: unknown): unknown {
  if (Array.isArray(v)) return v;
  if (typeof v !== "string" || v.trim() === "") return undefined;
  return v.split(/[;|,]/).map((t) => t.trim()).filter(Boolean);
}

function isLead(o: Obj): boolean {
  return "placeId" in o || "place_id" in o;
}

/** A lead (JSON, or the CSV's snake_case row) as a contact, when it has an email. */
function leadToContact(o: Obj, where: string): ImportRecord {
  const email = blankToUndefined(o.email);
  const name = blankToUndefined(o.name);
  if (email === undefined || email === null) return { where, skipped: `lead ${JSON.stringify(name ?? o.placeId ?? o.place_id ?? "")} has no email` };
  const contact: Obj = { email, name };
  const phone = blankToUndefined(o.phone);
  if (phone !== undefined && phone !== null) contact.phone = phone;
  return { where, contact };
}

function contactOf(o: Obj, where: string): ImportRecord {
  if (isLead(o)) return leadToContact(o, where);
  const contact: Obj = {};
  for (const key of ["email", "name", "phone", "description", "status"]) {
    const v = blankToUndefined(o[key]);
    if (v !== undefined && v !== null) contact[key] = v;
  }
  const tags = tagsOf(o.tags);
  if (tags !== undefined) contact.tags = tags;
  return { where, contact };
}

function fromCsv(text: string): ImportRecord[] {
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw new ImportFormatError(`not readable as CSV: ${(err as Error).message}`);
  }
  const [header, ...data] = rows;
  if (!header) return [];
  const columns = header.map((h) => h.trim().toLowerCase());
  if (!columns.includes("email")) throw new ImportFormatError(`the CSV header has no "email" column (found: ${columns.join(", ")})`);
  return data.map((cells, i) => {
    const o: Obj = {};
    columns.forEach((c, j) => (o[c] = cells[j] ?? ""));
    return contactOf(o, `row ${i + 2}`);
  });
}

function fromArray(items: unknown[], label: string): ImportRecord[] {
  return items.map((v, i) => (isObj(v) ? contactOf(v, `${label} ${i + 1}`) : { where: `${label} ${i + 1}`, unreadable: "not an object" }));
}

function fromJsonValue(value: unknown): ImportRecord[] {
  if (Array.isArray(value)) return fromArray(value, "item");
  if (isObj(value)) {
    // `leads search --json` prints a search result; `contacts list --json` a contact list.
    if (Array.isArray(value.leads)) return fromArray(value.leads, "lead");
    if (Array.isArray(value.contacts)) return fromArray(value.contacts, "item");
    return [contactOf(value, "item 1")];
  }
  return [{ where: "item 1", unreadable: "not an object" }];
}

function fromNdjson(text: string): ImportRecord[] {
  const lines = text.split(/\r?\n/);
  const records: ImportRecord[] = [];
  // The lead search's stream: the `complete` line's leads, else the last `progress` line's.
  let streamLeads: { line: number; leads: unknown[] } | undefined;
  let sawComplete = false;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      records.push({ where: `line ${i + 1}`, unreadable: "not valid JSON" });
      return;
    }
    if (isObj(value) && (value.type === "progress" || value.type === "complete" || value.type === "error")) {
      if (value.type === "error") return;
      const data = isObj(value.data) ? value.data : {};
      const leads = Array.isArray(data.leads) ? data.leads : [];
      if (value.type === "complete") {
        streamLeads = { line: i + 1, leads };
        sawComplete = true;
      } else if (!sawComplete) {
        streamLeads = { line: i + 1, leads };
      }
      return;
    }
    if (!isObj(value)) {
      records.push({ where: `line ${i + 1}`, unreadable: "not an object" });
      return;
    }
    records.push(contactOf(value, `line ${i + 1}`));
  });
  if (streamLeads) {
    const { line, leads } = streamLeads;
    leads.forEach((lead, j) => {
      const where = `line ${line}, lead ${j + 1}`;
      records.push(isObj(lead) ? leadToContact(lead, where) : { where, unreadable: "not an object" });
    });
  }
  return records;
}

/** Parse a file's text; `hint` is its name (for the extension) when there is one. */
export function parseImport(text: string, hint = ""): ImportRecord[] {
  const trimmed = text.replace(/^\uFEFF/, "").trimStart();
  if (trimmed === "") return [];
  const ext = hint.toLowerCase().split(".").pop();
  if (ext === "csv" || (ext !== "json" && ext !== "ndjson" && ext !== "jsonl" && !trimmed.startsWith("{") && !trimmed.startsWith("["))) {
    return fromCsv(text);
  }
  if (trimmed.startsWith("[")) {
    try {
      return fromJsonValue(JSON.parse(trimmed));
    } catch (err) {
      if (err instanceof SyntaxError) throw new ImportFormatError(`not readable as JSON: ${err.message}`);
      throw err;
    }
  }
  // One JSON document over several lines (`--json` output) or NDJSON: try the document first.
  const firstNewline = trimmed.indexOf("\n");
  if (firstNewline > 0 && !isCompleteJson(trimmed.slice(0, firstNewline))) {
    try {
      return fromJsonValue(JSON.parse(trimmed));
    } catch {
      // fall through: NDJSON with a bad first line is reported line by line
    }
  }
  if (firstNewline < 0) {
    try {
      return fromJsonValue(JSON.parse(trimmed));
    } catch {
      return [{ where: "line 1", unreadable: "not valid JSON" }];
    }
  }
  return fromNdjson(text);
}

function isCompleteJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
