import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson, printRecord } from "../../output.js";
import { defineVerb, type IdOptions } from "../shared.js";
import { describeVerification } from "./contact-flags.js";

/** `outreach contacts show ID`: one contact, its verification included. */
export type ShowOptions = IdOptions;

export function registerShow(contacts: Command, ctx: CommandContext): void {
  defineVerb(contacts, { name: "show", description: "show one contact", json: true, examples: ["outreach contacts show ct_3kF9x2aB7cD1eF4g"] }, (command) =>
    command.argument("<id>", "contact id (ct_…)"),
  ).action((id: string, options: { json?: boolean }) => runShow(ctx, { id, json: options.json }));
}

export async function runShow(ctx: CommandContext, { id, json }: ShowOptions): Promise<void> {
  const { contact } = await (await ctx.client()).call("contacts.get", { params: { id }, signal: ctx.io.signal });
  if (json) return printJson(ctx.io, { contact });
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
}
