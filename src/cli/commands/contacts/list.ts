import type { Command } from "commander";
import { eachContact } from "../../../client/contacts.js";
import { ContactStatus, type Contact } from "../../../core/schemas/contact.js";
import type { CommandContext } from "../../context.js";
import { intFlag, mutuallyExclusive } from "../../flags.js";
import { printJson, printRows } from "../../output.js";
import { defineVerb } from "../shared.js";
import { collect, commaList, CONTACT_COLUMNS, statuses, tagList, VERIFICATION_FILTERS, verificationFilter } from "./contact-flags.js";

/** `outreach contacts list`: what commander hands over. */
export interface ListFlags {
  search?: string;
  tag?: string[];
  status?: string;
  verification?: string;
  page?: string;
  limit?: string;
  all?: boolean;
  json?: boolean;
}

/** The checked options: the API's query filters (comma lists), a page or every page. */
export interface ListOptions {
  filters: { search?: string; tags?: string; status?: string; verification?: string };
  limit?: number;
  /** undefined with --all. */
  page?: number;
  all: boolean;
  json?: boolean;
}

export function registerList(contacts: Command, ctx: CommandContext): void {
  defineVerb(
    contacts,
    {
      name: "list",
      description: "list contacts, newest first",
      json: true,
      examples: ["outreach contacts list --search @acme --status active", "outreach contacts list --tag lead,berlin --all --json"],
    },
    (command) =>
      command
        .option("--search <text>", "part of the email (case-insensitive)")
        .option("--tag <tag>", "has this tag (repeatable, or a comma list: any of them)", collect)
        .option("--status <list>", `comma list of ${ContactStatus.options.join(", ")}`)
        .option("--verification <list>", `comma list of ${VERIFICATION_FILTERS.join(", ")}`)
        .option("--page <n>", "page number (from 1)")
        .option("--limit <n>", "contacts per page, 1 to 100 (default 20)")
        .option("--all", "walk every page"),
  ).action((flags: ListFlags) => runList(ctx, parseListOptions(flags)));
}

export function parseListOptions(flags: ListFlags): ListOptions {
  const filters = { search: flags.search, tags: commaList(tagList(flags.tag)), status: commaList(statuses(flags.status)), verification: commaList(verificationFilter(flags.verification)) };
  const limit = intFlag("--limit", flags.limit, { min: 1, max: 100 });
  if (flags.all) {
    mutuallyExclusive({ "--all": flags.all, "--page": flags.page }, "--all walks every page: leave out --page");
    return { filters, limit, all: true, json: flags.json };
  }
  return { filters, limit, page: intFlag("--page", flags.page, { min: 1, max: 1_000_000 }), all: false, json: flags.json };
}

export async function runList(ctx: CommandContext, { filters, limit, page, all, json }: ListOptions): Promise<void> {
  const client = await ctx.client();
  if (all) {
    const rows: Contact[] = [];
    for await (const c of eachContact(client, { ...filters, limit }, ctx.io.signal)) rows.push(c);
    if (json) return printJson(ctx.io, { contacts: rows, total: rows.length });
    printRows(ctx.io, ctx.env, rows, CONTACT_COLUMNS);
    return;
  }
  const result = await client.call("contacts.list", { query: { ...filters, limit, page }, signal: ctx.io.signal });
  if (json) return printJson(ctx.io, result);
  printRows(ctx.io, ctx.env, result.contacts, CONTACT_COLUMNS);
  if (result.totalPages > result.page) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} contacts): --page ${result.page + 1} for more, or --all`);
  else if (result.total === 0) ctx.info("no contacts match");
}
