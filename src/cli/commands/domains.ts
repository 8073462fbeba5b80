import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
import { registerAdd } from "./domains/add.js";
import { registerList } from "./domains/list.js";
import { registerRm } from "./domains/rm.js";
import { registerVerify } from "./domains/verify.js";

/** `outreach domains`: sending domains; each verb is its own file in domains/. */
export function registerDomains(program: Command, ctx: CommandContext): void {
  const domains = program.command("domains").description("sending domains: add, list, verify DNS, remove");
  attachVerbs(domains, ctx, registerAdd, registerList, registerVerify, registerRm);
}
