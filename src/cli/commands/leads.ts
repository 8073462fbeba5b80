import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
import { registerRetry } from "./leads/retry.js";
import { registerSearch } from "./leads/search.js";

/** The `leads` command group; each verb is its own file in leads/. */
export function registerLeads(program: Command, ctx: CommandContext): Command {
  return attachVerbs(program.command("leads").description("search local businesses (leads) around a place"), ctx, registerSearch, registerRetry);
}
