import type { Command } from "commander";
import { eachContact } from "../../../client/contacts.js";
import { ContactStatus, type Contact } from "../../../core/schemas/contact.js";
import type { CommandContext } from "../../context.js";
import { csvText } from "../../csv.js";
import { withDataSink } from "../../data-sink.js";
import { mutuallyExclusive } from "../../flags.js";
import { stdoutWasClosed } from "../../io.js";
import { rateProgress } from "../../rate-progress.js";
import { defineVerb } from "../shared.js";
import { collect, commaList, statuses, tagList } from "./contact-flags.js";

/** `outreach contacts export`: what commander hands over. */
export interface ExportFlags {
  csv?: boolean;
  ndjson?: boolean;
  search?: string;
  tag?: string[];
  status?: string;
  out?: string;
}

export interface ExportOptions {
  ndjson: boolean;
  /** The API's query filters (comma lists). */
  query: { search?: string; tags?: string; status?: string };
  out?: string;
}

/** The export's CSV columns: the plain contact CSV that `contacts import` reads back. */
const EXPORT_COLUMNS = ["email", "name", "phone", "description", "tags", "status", "id", "created_at", "updated_at"] as const;

function exportRow(c: Contact): Array<string | null> {
  return [c.email, c.name, c.phone ?? "", c.description ?? "", c.tags.join("; "), c.status, c.id, c.createdAt, c.updatedAt];
}

export function registerExport(contacts: Command, ctx: CommandContext): void {
  defineVerb(
    contacts,
    {
      name: "export",
      description: "print every contact as CSV (default) or NDJSON",
      examples: ["outreach contacts export --csv > contacts.csv", "outreach contacts export --ndjson --status active | jq .email"],
    },
    (command) =>
      command
        .option("--csv", "CSV with a header: email,name,phone,description,tags,status,id,created_at,updated_at")
        .option("--ndjson", "one contact JSON object per line")
        .option("--search <text>", "only contacts whose email contains this")
        .option("--tag <tag>", "only contacts with any of these tags (repeatable)", collect)
        .option("--status <list>", `comma list of ${ContactStatus.options.join(", ")}`)
        .option("--out <file>", "write to FILE instead of stdout (replaced only when the export succeeds)"),
  ).action((flags: ExportFlags) => runExport(ctx, parseExportOptions(flags)));
}

export function parseExportOptions(flags: ExportFlags): ExportOptions {
  mutuallyExclusive({ "--csv": flags.csv, "--ndjson": flags.ndjson });
  return { ndjson: Boolean(flags.ndjson), query: { search: flags.search, tags: commaList(tagList(flags.tag)), status: commaList(statuses(flags.status)) }, out: flags.out };
}

export async function runExport(ctx: CommandContext, { ndjson, query, out }: ExportOptions): Promise<void> {
  const client = await ctx.client();
  const progress = rateProgress(ctx.io, ctx.clock, "contacts");
  let count = 0;
  let total: number | undefined;
  try {
    await withDataSink(ctx.io, out, async (sink) => {
      if (!ndjson) sink.write(csvText([EXPORT_COLUMNS]));
      const onPage = (page: { total: number }) => progress.setTotal((total = page.total));
      for await (const c of eachContact(client, query, ctx.io.signal, onPage)) {
        // Ctrl-C between rows: the --out file is then discarded by withDataSink.
        ctx.io.signal?.throwIfAborted();
        sink.write(ndjson ? JSON.stringify(c) + "\n" : csvText([exportRow(c)]));
        progress.update(++count);
      }
    });
  } catch (err) {
    progress.stop();
    if (ctx.io.signal?.aborted && !stdoutWasClosed(ctx.io)) {
      const of = total === undefined ? "" : ` of ${total.toLocaleString("en")}`;
      ctx.info(`interrupted after ${count.toLocaleString("en")}${of} contacts: ${out ? `${out} was not written` : "the output is incomplete"}`);
    }
    throw err;
  }
  progress.stop();
  ctx.info(`exported ${count} contact${count === 1 ? "" : "s"}${out ? ` to ${out}` : ""}`);
}
