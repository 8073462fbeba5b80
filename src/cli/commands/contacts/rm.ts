import { confirm } from "@inquirer/prompts";
import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { promptContext } from "../../io.js";
import { example } from "../shared.js";

/** `outreach contacts rm ID`: one contact deleted, after asking on a terminal. */
export interface RmOptions {
  id: string;
  yes?: boolean;
}

export function registerRm(contacts: Command, ctx: CommandContext): void {
  const command = contacts
    .command("rm")
    .description("delete a contact (asks first on a terminal)")
    .argument("<id>", "contact id (ct_…)")
    .option("-y, --yes", "do not ask (scripts)")
    .action((id: string, options: { yes?: boolean }) => runRm(ctx, { id, yes: options.yes }));
  example(command, "outreach contacts rm ct_3kF9x2aB7cD1eF4g", "outreach contacts rm ct_3kF9x2aB7cD1eF4g --yes");
}

export async function runRm(ctx: CommandContext, { id, yes }: RmOptions): Promise<void> {
  const client = await ctx.client();
  if (!yes) {
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
}
