import type { Command } from "commander";
import { resolve } from "node:path";
import { backupDatabase } from "../../../store/db.js";
import type { CommandContext } from "../../context.js";
import { defineVerb } from "../shared.js";

/** `outreach admin backup FILE`: a consistent copy of the database, safe while the server runs. */
export interface BackupOptions {
  file: string;
}

export function registerBackup(admin: Command, ctx: CommandContext): void {
  defineVerb(admin, { name: "backup", description: "write a consistent copy of the database (safe while the server runs)", examples: ["outreach admin backup /backups/outreach-$(date +%F).db"] }, (command) =>
    command.argument("<file>", "where to write the copy"),
  ).action((file: string) => runBackup(ctx, { file }));
}

export async function runBackup(ctx: CommandContext, options: BackupOptions): Promise<void> {
  const instance = ctx.openInstance();
  const destination = resolve(options.file);
  await backupDatabase(instance.services.deps.db, destination);
  ctx.info(`Backed up ${instance.dataDir} to ${destination}. Keep the key file (${instance.dataDir}/secret.key) or OUTREACH_SECRET_KEY too: without it encrypted fields cannot be read.`);
}
