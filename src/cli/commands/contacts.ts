import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
import { registerAdd } from "./contacts/add.js";
import { registerExport } from "./contacts/export.js";
import { registerImport } from "./contacts/import.js";
import { registerList } from "./contacts/list.js";
import { registerRm } from "./contacts/rm.js";
import { registerShow } from "./contacts/show.js";
import { registerUpdate } from "./contacts/update.js";
import { registerVerify } from "./contacts/verify.js";

/** `outreach contacts`: the active workspace's contacts; each verb is its own file in contacts/. */
export function registerContacts(program: Command, ctx: CommandContext): void {
  const contacts = program.command("contacts").description("manage the active workspace's contacts (personal data is encrypted at rest)");
  attachVerbs(contacts, ctx, registerAdd, registerList, registerShow, registerVerify, registerUpdate, registerRm, registerImport, registerExport);
}
