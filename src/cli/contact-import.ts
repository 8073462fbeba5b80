import { CONTACT_LIMITS } from "../core/schemas/contact.js";
import { delimiterName, sniffDelimiter } from "../core/text-file.js";
import { timeZoneAt } from "../core/time-zone-lookup.js";
import { CsvFormatError, readCsv } from "./csv.js";

/**
 * Reads what people import contacts from: the lead search's `--csv`, `--ndjson` (the raw
 * stream, every page of it) and `--json` output, plain NDJSON or JSON of leads or
 * contacts, and a plain contact CSV (email,name,phone,description,tags,status, what
 * `contacts export` writes). Every record keeps the row number the user sees in the file,
 * so a report can point at it.
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

/** Categories as tags: a tag holds no comma or control character and is at most 64 characters. */
function categoryTags(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === "string" ? v.split(";") : [];
  const tags = list
    .filter((c): c is string => typeof c === "string")
    .map((c) => c.replace(/[,\p{Cc}]+/gu, " ").replace(/\s+/g, " ").trim().slice(0, CONTACT_LIMITS.tag).trim())
    .filter(Boolean);
  return [...new Set(tags)].slice(0, CONTACT_LIMITS.tags);
}

/**
 * A lead (JSON, or the CSV's snake_case row) as a contact, when it has an email: the
 * business's name, its phone, its website as the description and its categories as tags
 * (docs/cli.md, "contacts import"). A name longer than a contact's is cut, not refused.
 */
function leadToContact(o: Obj, where: string): ImportRecord {
  const email = blankToUndefined(o.email);
  const name = blankToUndefined(o.name);
  if (email === undefined || email === null) return { where, skipped: `lead ${JSON.stringify(name ?? o.placeId ?? o.place_id ?? "")} has no email` };
  const contact: Obj = { email, name: typeof name === "string" && name.length > CONTACT_LIMITS.name ? name.slice(0, CONTACT_LIMITS.name - 1).trimEnd() + "…" : name };
  const phone = blankToUndefined(o.phone);
  if (phone !== undefined && phone !== null) contact.phone = phone;
  const website = blankToUndefined(o.website);
  if (typeof website === "string") contact.description = website;
  const tags = categoryTags(o.categories);
  if (tags.length) contact.tags = tags;
  // Send windows are read in the recipient's zone: the business's own, from where it is.
  const timeZone = coordinate(o.lat) !== undefined && coordinate(o.lng) !== undefined ? timeZoneAt(coordinate(o.lat)!, coordinate(o.lng)!) : null;
  if (timeZone) contact.timeZone = timeZone;
  return { where, contact };
}

/** A lead's lat or lng: a JSON number, or a CSV cell holding one. */
function coordinate(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function contactOf(o: Obj, where: string): ImportRecord {
  if (isLead(o)) return leadToContact(o, where);
  const contact: Obj = {};
  for (const key of ["email", "name", "phone", "description", "status", "timeZone"]) {
    const v = blankToUndefined(o[key]);
    if (v !== undefined && v !== null) contact[key] = v;
  }
  const tags = tagsOf(o.tags);
  if (tags !== undefined) contact.tags = tags;
  return { where, contact };
}

/** A CSV separated by `,` `;` tab or `|` (sniffed: European Excel writes `;`). */
function fromCsv(text: string): ImportRecord[] {
  const delimiter = sniffDelimiter(text);
  let rows: string[][];
  try {
    rows = readCsv(text, { delimiter });
  } catch (err) {
    if (err instanceof CsvFormatError) throw new ImportFormatError(err.message);
    throw err;
  }
  const [header, ...data] = rows;
  if (!header) return [];
  const columns = header.map((h) => h.trim().toLowerCase());
  if (!columns.includes("email")) {
    throw new ImportFormatError(`the CSV header has no "email" column (found: ${columns.map((c) => JSON.stringify(c)).join(", ")}, separated by ${delimiterName(delimiter)})`);
  }
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

/**
 * NDJSON: plain records one a line, or the lead search's stream. The stream of
 * `--ndjson --all` holds one page after another, each ending in its own `complete` line
 * (or an `error` line): every page's `complete` leads are read; a page cut off before its
 * `complete` line gives its last `progress` line's leads, so nothing that was printed is lost.
 */
function fromNdjson(text: string): ImportRecord[] {
  const lines = text.split(/\r?\n/);
  const records: ImportRecord[] = [];
  // The stream's leads by placeId (a later page's snapshot of a lead replaces an earlier one).
  const streamLeads = new Map<string, ImportRecord>();
  let unnamed = 0;
  let pageProgress: { line: number; leads: unknown[] } | undefined;
  const takeLeads = (line: number, leads: unknown[]) => {
    leads.forEach((lead, j) => {
      const where = `line ${line}, lead ${j + 1}`;
      const record = isObj(lead) ? leadToContact(lead, where) : { where, unreadable: "not an object" };
      const id = isObj(lead) && typeof lead.placeId === "string" ? lead.placeId : `#${unnamed++}`;
      streamLeads.delete(id);
      streamLeads.set(id, record);
    });
  };
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
      const data = isObj(value.data) ? value.data : {};
      const leads = Array.isArray(data.leads) ? data.leads : [];
      if (value.type === "progress") {
        pageProgress = { line: i + 1, leads };
        return;
      }
      if (value.type === "complete") takeLeads(i + 1, leads);
      // An error line ends its page: what its progress lines had shown still counts.
      else if (pageProgress) takeLeads(pageProgress.line, pageProgress.leads);
      pageProgress = undefined;
      return;
    }
    if (!isObj(value)) {
      records.push({ where: `line ${i + 1}`, unreadable: "not an object" });
      return;
    }
    records.push(contactOf(value, `line ${i + 1}`));
  });
  if (pageProgress) takeLeads(pageProgress.line, pageProgress.leads);
  return [...records, ...streamLeads.values()];
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
