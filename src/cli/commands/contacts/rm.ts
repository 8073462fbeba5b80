import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { confirmed } from "../../confirm.js";
import { defineVerb } from "../shared.js";

/** `outreach contacts rm ID`: one contact deleted, after asking on a terminal. */
export interface RmOptions {
  id: string;
  yes?: boolean;
}

export function registerRm(contacts: Command, ctx: CommandContext): void {
  defineVerb(
    contacts,
    { name: "rm", description: "delete a contact (asks first on a terminal)", examples: ["outreach contacts rm ct_3kF9x2aB7cD1eF4g", "outreach contacts rm ct_3kF9x2aB7cD1eF4g --yes"] },
    (command) =>
      command
        .argument("<id>", "contact id (ct_…)")
        .option("-y, --yes", "do not ask (scripts)"),
  ).action((id: string, options: { yes?: boolean }) => runRm(ctx, { id, yes: options.yes }));
}

export async function runRm(ctx: CommandContext, { id, yes }: RmOptions): Promise<void> {
  const client = await ctx.client();
  const go = await confirmed(ctx, {
    yes,
    refusal: "refusing to delete without --yes when not on a terminal",
    question: async () => {
      const { contact } = await client.call("contacts.get", { params: { id }, signal: ctx.io.signal });
      return `Delete ${contact.name} <${contact.email}>?`;
    },
    declined: "Kept.",
  });
  if (!go) return;
  await client.call("contacts.delete", { params: { id }, signal: ctx.io.signal });
  ctx.info(`Deleted ${id}.`);
}
