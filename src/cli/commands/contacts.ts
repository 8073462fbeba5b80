import { confirm } from "@inquirer/prompts";
import { Option, type Command } from "commander";
import { isAppError } from "../../core/errors.js";
import { decodeText, readTextFile, type DecodedText } from "../../core/text-file.js";
import { VerificationStatus, type VerifyResult } from "../../core/schemas/verification.js";
import { ContactStatus, CONTACT_LIMITS, type Contact } from "../../core/schemas/contact.js";
import { eachContact } from "../../client/contacts.js";
import { parseImport, ImportFormatError, type ImportRecord } from "../contact-import.js";
import { runImport } from "../contact-import-run.js";
import type { CommandContext } from "../context.js";
import { csvText } from "../csv.js";
import { withDataSink } from "../data-sink.js";
import { CliError, EXIT, UsageError } from "../exit-codes.js";
import { choiceListFlag, intFlag, mutuallyExclusive } from "../flags.js";
import { promptContext, readAllBytes, stdoutWasClosed } from "../io.js";
import { printJson, printRecord, printRows } from "../output.js";
import { rateProgress } from "../rate-progress.js";
import { progressSpinner } from "../progress-spinner.js";
import { example, withJson } from "./shared.js";
import { apiFields } from "../flag-language.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

const statuses = (value: string | undefined) => choiceListFlag("--status", value, ContactStatus.options);
const VERIFICATION_FILTERS = [...VerificationStatus.options, "unverified"] as const;
const verificationFilter = (value: string | undefined) => choiceListFlag("--verification", value, VERIFICATION_FILTERS);

/** A list as the API's comma-list query parameters take it; undefined when empty. */
function commaList(values: readonly string[] | undefined): string | undefined {
  return values?.length ? values.join(",") : undefined;
}

function tagList(tags: string[] | undefined): string[] | undefined {
  return tags?.flatMap((t) => t.split(",")).map((t) => t.trim()).filter(Boolean);
}

const CONTACT_COLUMNS = [
  { header: "ID", value: (c: Contact) => c.id },
  { header: "EMAIL", value: (c: Contact) => c.email },
  { header: "NAME", value: (c: Contact) => c.name },
  { header: "PHONE", value: (c: Contact) => c.phone },
  { header: "STATUS", value: (c: Contact) => c.status },
  { header: "TAGS", value: (c: Contact) => c.tags.join(", ") },
];

/** The export's CSV columns: the plain contact CSV that `contacts import` reads back. */
const EXPORT_COLUMNS = ["email", "name", "phone", "description", "tags", "status", "id", "created_at", "updated_at"] as const;

function exportRow(c: Contact): Array<string | null> {
  return [c.email, c.name, c.phone ?? "", c.description ?? "", c.tags.join("; "), c.status, c.id, c.createdAt, c.updatedAt];
}

function tallyText(t: VerifyResult["byStatus"]): string {
  return `${t.deliverable} deliverable, ${t.undeliverable} undeliverable, ${t.risky} risky, ${t.unknown} unknown`;
}

function describeVerification(c: Contact): string {
  const v = c.verification;
  if (!v) return "not verified";
  const flags = [v.checks.role ? "role address" : "", v.checks.disposable ? "disposable domain" : ""].filter(Boolean);
  return `${v.status} (${v.reason}; smtp ${v.checks.smtp}${flags.length ? `; ${flags.join(", ")}` : ""}; ${v.checkedAt})`;
}

export function registerContacts(program: Command, ctx: CommandContext): void {
  const contacts = program.command("contacts").description("manage the active workspace's contacts (personal data is encrypted at rest)");
  const api = () => ctx.client();

  const add = withJson(
    contacts
      .command("add")
      .description("create a contact")
      .requiredOption("--email <email>", "email address (unique in the workspace, any case)")
      .requiredOption("--name <name>", "name")
      .option("--phone <phone>", "phone number")
      .option("--description <text>", "free text")
      .option("--tag <tag>", "a tag (repeatable)", collect)
      .addOption(new Option("--status <status>", "active (default) or unsubscribed").choices(ContactStatus.options))
      .option("--time-zone <zone>", "IANA time zone for send windows (Europe/Berlin); default: the brand's"),
  ).action(async (o: { email: string; name: string; phone?: string; description?: string; tag?: string[]; status?: Contact["status"]; timeZone?: string; json?: boolean }) => {
    const result = await (await api()).call("contacts.add", {
      body: { email: o.email, name: o.name, phone: o.phone, description: o.description, tags: tagList(o.tag), status: o.status, timeZone: o.timeZone },
      signal: ctx.io.signal,
    });
    if (o.json) return printJson(ctx.io, result);
    ctx.info(`Created contact ${o.email}.`);
    ctx.io.stdout.write(result.contact.id + "\n");
  });
  apiFields(add, { tags: "--tag" });
  example(add, "outreach contacts add --email ada@example.com --name 'Ada Lovelace' --tag lead --tag london");

  const list = withJson(
    contacts
      .command("list")
      .description("list contacts, newest first")
      .option("--search <text>", "part of the email (case-insensitive)")
      .option("--tag <tag>", "has this tag (repeatable, or a comma list: any of them)", collect)
      .option("--status <list>", `comma list of ${ContactStatus.options.join(", ")}`)
      .option("--verification <list>", `comma list of ${VERIFICATION_FILTERS.join(", ")}`)
      .option("--page <n>", "page number (from 1)")
      .option("--limit <n>", "contacts per page, 1 to 100 (default 20)")
      .option("--all", "walk every page"),
  ).action(async (o: { search?: string; tag?: string[]; status?: string; verification?: string; page?: string; limit?: string; all?: boolean; json?: boolean }) => {
    const client = await api();
    const filters = { search: o.search, tags: commaList(tagList(o.tag)), status: commaList(statuses(o.status)), verification: commaList(verificationFilter(o.verification)) };
    const limit = intFlag("--limit", o.limit, { min: 1, max: 100 });
    if (o.all) {
      mutuallyExclusive({ "--all": o.all, "--page": o.page }, "--all walks every page: leave out --page");
      const rows: Contact[] = [];
      for await (const c of eachContact(client, { ...filters, limit }, ctx.io.signal)) rows.push(c);
      if (o.json) return printJson(ctx.io, { contacts: rows, total: rows.length });
      printRows(ctx.io, ctx.env, rows, CONTACT_COLUMNS);
      return;
    }
    const result = await client.call("contacts.list", { query: { ...filters, limit, page: intFlag("--page", o.page, { min: 1, max: 1_000_000 }) }, signal: ctx.io.signal });
    if (o.json) return printJson(ctx.io, result);
    printRows(ctx.io, ctx.env, result.contacts, CONTACT_COLUMNS);
    if (result.totalPages > result.page) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} contacts): --page ${result.page + 1} for more, or --all`);
    else if (result.total === 0) ctx.info("no contacts match");
  });
  example(list, "outreach contacts list --search @acme --status active", "outreach contacts list --tag lead,berlin --all --json");

  const show = withJson(contacts.command("show").description("show one contact").argument("<id>", "contact id (ct_…)")).action(
    async (id: string, o: { json?: boolean }) => {
      const { contact } = await (await api()).call("contacts.get", { params: { id }, signal: ctx.io.signal });
      if (o.json) return printJson(ctx.io, { contact });
      printRecord(ctx.io, [
        ["id", contact.id],
        ["email", contact.email],
        ["name", contact.name],
        ["phone", contact.phone],
        ["description", contact.description],
        ["status", contact.status],
        ["tags", contact.tags.join(", ")],
        ["verification", describeVerification(contact)],
        ["created", contact.createdAt],
        ["updated", contact.updatedAt],
      ]);
    },
  );
  example(show, "outreach contacts show ct_3kF9x2aB7cD1eF4g");

  const verify = withJson(
    contacts
      .command("verify")
      .description("check addresses: deliverable, undeliverable, risky or unknown, with the reason (SMTP probe with OUTREACH_VERIFY_SMTP=1)")
      .argument("[ids...]", "contact ids (ct_…), up to 1,000")
      .option("--all", "every contact of the workspace (an interrupted run is continued)"),
  ).action(async (ids: string[], o: { all?: boolean; json?: boolean }) => {
    mutuallyExclusive({ "--all": o.all, "contact ids": ids.length > 0 }, "give contact ids or --all, not both");
    if (!o.all && ids.length === 0) throw new UsageError("give contact ids or --all");
    const client = await api();
    const body = o.all ? { all: true as const } : { contactIds: ids };
    const spinner = progressSpinner(ctx.io, "verifying…");
    let result: VerifyResult | undefined;
    try {
      for await (const event of client.stream("contacts.verify", { body, signal: ctx.io.signal })) {
        if (event.type === "progress") {
          const p = event.data;
          spinner.update(`verified ${p.checked}${p.total === null ? "" : ` of ${p.total}`}: ${tallyText(p.byStatus)}`);
        } else result = event.data;
      }
    } catch (err) {
      // What was verified stays verified (each contact is written as it is checked).
      spinner.fail("stopped: the contacts verified so far keep their result");
      // Ctrl-C: the server side may have reported the abort before the client saw it.
      if (ctx.io.signal?.aborted) throw Object.assign(new Error("interrupted"), { name: "AbortError" });
      throw err;
    }
    spinner.stop();
    if (!result) return;
    if (o.json) return printJson(ctx.io, result);
    ctx.io.stdout.write(`verified ${result.checked}: ${tallyText(result.byStatus)}\n`);
  });
  example(verify, "outreach contacts verify --all", "outreach contacts verify ct_3kF9x2aB7cD1eF4g ct_8hJ2k4mN6pQ8rS1t", "outreach contacts list --verification undeliverable");

  const update = withJson(
    contacts
      .command("update")
      .description("change a contact's email, name, phone, description, tags or time zone")
      .argument("<id>", "contact id (ct_…)")
      .option("--email <email>", "new email")
      .option("--name <name>", "new name")
      .option("--phone <phone>", "new phone ('' to clear)")
      .option("--description <text>", "new description ('' to clear)")
      .option("--tag <tag>", "replace the tags with these (repeatable)", collect)
      .option("--clear-tags", "remove every tag")
      .option("--time-zone <zone>", "IANA time zone for send windows ('' to use the brand's)"),
  ).action(async (id: string, o: { email?: string; name?: string; phone?: string; description?: string; tag?: string[]; clearTags?: boolean; timeZone?: string; json?: boolean }) => {
    mutuallyExclusive({ "--tag": o.tag, "--clear-tags": o.clearTags });
    const change: Record<string, unknown> = {};
    if (o.email !== undefined) change.email = o.email;
    if (o.name !== undefined) change.name = o.name;
    if (o.phone !== undefined) change.phone = o.phone === "" ? null : o.phone;
    if (o.description !== undefined) change.description = o.description === "" ? null : o.description;
    if (o.tag) change.tags = tagList(o.tag);
    if (o.clearTags) change.tags = [];
    if (o.timeZone !== undefined) change.timeZone = o.timeZone === "" ? null : o.timeZone;
    if (Object.keys(change).length === 0) throw new UsageError("nothing to change: give at least one of --email, --name, --phone, --description, --tag, --clear-tags, --time-zone");
    const { contact } = await (await api()).call("contacts.update", { params: { id }, body: change, signal: ctx.io.signal });
    if (o.json) return printJson(ctx.io, { contact });
    ctx.info(`Updated ${contact.email} (${contact.id}).`);
  });
  apiFields(update, { tags: "--tag" });
  example(update, "outreach contacts update ct_3kF9x2aB7cD1eF4g --name 'Ada King' --tag customer");

  const rm = contacts
    .command("rm")
    .description("delete a contact (asks first on a terminal)")
    .argument("<id>", "contact id (ct_…)")
    .option("-y, --yes", "do not ask (scripts)")
    .action(async (id: string, o: { yes?: boolean }) => {
      const client = await api();
      if (!o.yes) {
        if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) throw new UsageError("refusing to delete without --yes when not on a terminal");
        const { contact } = await client.call("contacts.get", { params: { id }, signal: ctx.io.signal });
        const ok = await confirm({ message: `Delete ${contact.name} <${contact.email}>?`, default: false }, promptContext(ctx.io));
        if (!ok) {
          ctx.info("Kept.");
          return;
        }
      }
      await client.call("contacts.delete", { params: { id }, signal: ctx.io.signal });
      ctx.info(`Deleted ${id}.`);
    });
  example(rm, "outreach contacts rm ct_3kF9x2aB7cD1eF4g", "outreach contacts rm ct_3kF9x2aB7cD1eF4g --yes");

  const importCmd = withJson(
    contacts
      .command("import")
      .description("create contacts from CSV or NDJSON/JSON: a contact CSV, or what `outreach leads search --csv/--ndjson/--json` prints")
      .argument("<file>", "file to read, or - for stdin")
      .option("--tag <tag>", "add this tag to every imported contact (repeatable)", collect)
      .option("--strict", "check every row first and import nothing if one is invalid")
      .option("--batch-size <n>", `rows per API call at the most, 1 to ${CONTACT_LIMITS.importBatch} (smaller ones are sent while the rate is measured)`, String(CONTACT_LIMITS.importBatch))
      .option("--encoding <name>", "the file's text encoding (default: detected: a BOM, else UTF-8, else Windows-1252)"),
  ).action(async (file: string, o: { tag?: string[]; strict?: boolean; batchSize: string; encoding?: string; json?: boolean }) => {
    const source = file === "-" ? "stdin" : file;
    let records: ImportRecord[];
    try {
      const read = await readImportFile(ctx, file, o.encoding);
      records = parseImport(read.text, file === "-" ? "" : file);
    } catch (err) {
      if (err instanceof ImportFormatError) throw new UsageError(`${source}: ${err.message}`);
      if (isAppError(err)) throw new UsageError(err.message);
      throw err;
    }
    const report = await runImport(ctx, await api(), records, { tags: tagList(o.tag) ?? [], strict: Boolean(o.strict), batchSize: intFlag("--batch-size", o.batchSize, { min: 1, max: CONTACT_LIMITS.importBatch })! });
    if (o.json) printJson(ctx.io, report);
    if (report.interrupted) throw new CliError("interrupted", EXIT.interrupted);
    if (report.invalid > 0) throw new CliError(`${report.invalid} invalid row${report.invalid === 1 ? "" : "s"} not imported (see above)`, EXIT.usage);
    if (report.limitReached > 0) throw new CliError(`${report.limitReached} row${report.limitReached === 1 ? "" : "s"} not imported: the plan's contact limit was reached`, EXIT.auth);
  });
  example(
    importCmd,
    "outreach leads search --location Vaduz --keywords dentist --csv > dentists.csv && outreach contacts import dentists.csv --tag dentist",
    "outreach leads search --location Vaduz --keywords bakery --ndjson | outreach contacts import - --tag bakery",
    "outreach contacts import people.csv --strict",
  );

  const exportCmd = contacts
    .command("export")
    .description("print every contact as CSV (default) or NDJSON")
    .option("--csv", "CSV with a header: email,name,phone,description,tags,status,id,created_at,updated_at")
    .option("--ndjson", "one contact JSON object per line")
    .option("--search <text>", "only contacts whose email contains this")
    .option("--tag <tag>", "only contacts with any of these tags (repeatable)", collect)
    .option("--status <list>", `comma list of ${ContactStatus.options.join(", ")}`)
    .option("--out <file>", "write to FILE instead of stdout (replaced only when the export succeeds)")
    .action(async (o: { csv?: boolean; ndjson?: boolean; search?: string; tag?: string[]; status?: string; out?: string }) => {
      mutuallyExclusive({ "--csv": o.csv, "--ndjson": o.ndjson });
      const query = { search: o.search, tags: commaList(tagList(o.tag)), status: commaList(statuses(o.status)) };
      const client = await api();
      const progress = rateProgress(ctx.io, ctx.clock, "contacts");
      let count = 0;
      let total: number | undefined;
      try {
        await withDataSink(ctx.io, o.out, async (sink) => {
          if (!o.ndjson) sink.write(csvText([EXPORT_COLUMNS]));
          const onPage = (page: { total: number }) => progress.setTotal((total = page.total));
          for await (const c of eachContact(client, query, ctx.io.signal, onPage)) {
            // Ctrl-C between rows: the --out file is then discarded by withDataSink.
            ctx.io.signal?.throwIfAborted();
            sink.write(o.ndjson ? JSON.stringify(c) + "\n" : csvText([exportRow(c)]));
            progress.update(++count);
          }
        });
      } catch (err) {
        progress.stop();
        if (ctx.io.signal?.aborted && !stdoutWasClosed(ctx.io)) {
          const of = total === undefined ? "" : ` of ${total.toLocaleString("en")}`;
          ctx.info(`interrupted after ${count.toLocaleString("en")}${of} contacts: ${o.out ? `${o.out} was not written` : "the output is incomplete"}`);
        }
        throw err;
      }
      progress.stop();
      ctx.info(`exported ${count} contact${count === 1 ? "" : "s"}${o.out ? ` to ${o.out}` : ""}`);
    });
  example(exportCmd, "outreach contacts export --csv > contacts.csv", "outreach contacts export --ndjson --status active | jq .email");
}

/** The import's input as text: a file or stdin, its encoding detected or forced, a folder or binary data refused. */
async function readImportFile(ctx: CommandContext, file: string, encoding: string | undefined): Promise<DecodedText> {
  const read = file === "-" ? decodeText(await readAllBytes(ctx.io.stdin), "stdin", { forced: encoding }) : readTextFile(file, { forced: encoding });
  if (read.notice) ctx.warn(read.notice);
  if (read.text.trim() === "") throw new UsageError(`${file === "-" ? "stdin" : file}: empty, nothing to import`);
  return read;
}
