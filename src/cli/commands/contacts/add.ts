import { Option, type Command } from "commander";
import { ContactStatus, type Contact } from "../../../core/schemas/contact.js";
import type { CommandContext } from "../../context.js";
import { apiFields } from "../../flag-language.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { collect, tagList } from "./contact-flags.js";

/** `outreach contacts add`: one contact. */
export interface AddOptions {
  email: string;
  name: string;
  phone?: string;
  description?: string;
  tag?: string[];
  status?: Contact["status"];
  timeZone?: string;
  json?: boolean;
}

export function registerAdd(contacts: Command, ctx: CommandContext): void {
  const command = defineVerb(
    contacts,
    { name: "add", description: "create a contact", json: true, examples: ["outreach contacts add --email ada@example.com --name 'Ada Lovelace' --tag lead --tag london"] },
    (command) =>
      command
        .requiredOption("--email <email>", "email address (unique in the workspace, any case)")
        .requiredOption("--name <name>", "name")
        .option("--phone <phone>", "phone number")
        .option("--description <text>", "free text")
        .option("--tag <tag>", "a tag (repeatable)", collect)
        .addOption(new Option("--status <status>", "active (default) or unsubscribed").choices(ContactStatus.options))
        .option("--time-zone <zone>", "IANA time zone for send windows (Europe/Berlin); default: the brand's"),
  ).action((options: AddOptions) => runAdd(ctx, options));
  apiFields(command, { tags: "--tag" });
}

export async function runAdd(ctx: CommandContext, o: AddOptions): Promise<void> {
  const result = await (await ctx.client()).call("contacts.add", {
    body: { email: o.email, name: o.name, phone: o.phone, description: o.description, tags: tagList(o.tag), status: o.status, timeZone: o.timeZone },
    signal: ctx.io.signal,
  });
  if (o.json) return printJson(ctx.io, result);
  ctx.info(`Created contact ${o.email}.`);
  ctx.io.stdout.write(result.contact.id + "\n");
}
