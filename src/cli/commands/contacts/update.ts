import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { apiFields } from "../../flag-language.js";
import { mutuallyExclusive } from "../../flags.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { collect, tagList } from "./contact-flags.js";

/** `outreach contacts update ID`: what commander hands over ('' clears a field). */
export interface UpdateFlags {
  email?: string;
  name?: string;
  phone?: string;
  description?: string;
  tag?: string[];
  clearTags?: boolean;
  timeZone?: string;
  json?: boolean;
}

export interface UpdateOptions {
  id: string;
  /** Only the fields to change; null clears one. */
  change: Record<string, unknown>;
  json?: boolean;
}

export function registerUpdate(contacts: Command, ctx: CommandContext): void {
  const command = defineVerb(
    contacts,
    {
      name: "update",
      description: "change a contact's email, name, phone, description, tags or time zone",
      json: true,
      examples: ["outreach contacts update ct_3kF9x2aB7cD1eF4g --name 'Ada King' --tag customer"],
    },
    (command) =>
      command
        .argument("<id>", "contact id (ct_…)")
        .option("--email <email>", "new email")
        .option("--name <name>", "new name")
        .option("--phone <phone>", "new phone ('' to clear)")
        .option("--description <text>", "new description ('' to clear)")
        .option("--tag <tag>", "replace the tags with these (repeatable)", collect)
        .option("--clear-tags", "remove every tag")
        .option("--time-zone <zone>", "IANA time zone for send windows ('' to use the brand's)"),
  ).action((id: string, flags: UpdateFlags) => runUpdate(ctx, parseUpdateOptions(id, flags)));
  apiFields(command, { tags: "--tag" });
}

export function parseUpdateOptions(id: string, o: UpdateFlags): UpdateOptions {
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
  return { id, change, json: o.json };
}

export async function runUpdate(ctx: CommandContext, { id, change, json }: UpdateOptions): Promise<void> {
  const { contact } = await (await ctx.client()).call("contacts.update", { params: { id }, body: change, signal: ctx.io.signal });
  if (json) return printJson(ctx.io, { contact });
  ctx.info(`Updated ${contact.email} (${contact.id}).`);
}
