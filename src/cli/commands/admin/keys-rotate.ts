import type { Command } from "commander";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { addKeyToKeyFile, KEY_FILE_NAME, loadKeyring, retireOldKeys } from "../../../core/crypto.js";
import type { Instance } from "../../../services/instance.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT, UsageError } from "../../exit-codes.js";
import { intFlag } from "../../flags.js";
import { defineVerb } from "../shared.js";

/** `outreach admin keys rotate`: every encrypted field re-encrypted under a new key, in batches. */
export interface KeysRotateFlags {
  batchSize: string;
  keepOld?: boolean;
}

export interface KeysRotateOptions {
  batchSize: number;
  keepOld: boolean;
}

export function registerKeysRotate(keys: Command, ctx: CommandContext): void {
  defineVerb(
    keys,
    {
      name: "rotate",
      description: "re-encrypt every encrypted field under a new key, in batches, while a server may keep serving",
      examples: ["outreach admin keys rotate", "OUTREACH_SECRET_KEY=$NEW OUTREACH_SECRET_KEY_PREVIOUS=$OLD outreach admin keys rotate"],
    },
    (command) =>
      command
        .option("--batch-size <n>", "rows per transaction", "200")
        .option("--keep-old", "keep the old key in the key file after re-encrypting (default: retire it)"),
  ).action((flags: KeysRotateFlags) => runKeysRotate(ctx, parseKeysRotateOptions(flags)));
}

export function parseKeysRotateOptions(flags: KeysRotateFlags): KeysRotateOptions {
  return { batchSize: intFlag("--batch-size", flags.batchSize, { min: 1, max: 10_000 })!, keepOld: Boolean(flags.keepOld) };
}

export async function runKeysRotate(ctx: CommandContext, options: KeysRotateOptions): Promise<void> {
  const instance = ctx.openInstance();
  const services = instance.services;
  const fromEnv = Boolean(ctx.env.OUTREACH_SECRET_KEY);
  if (fromEnv) {
    // The operator rotates: new key in OUTREACH_SECRET_KEY, old in OUTREACH_SECRET_KEY_PREVIOUS.
    ctx.info(`Re-encrypting under OUTREACH_SECRET_KEY (key ${services.keys.get().currentId}); OUTREACH_SECRET_KEY_PREVIOUS must hold the old key.`);
  } else {
    addOrResumeFileKey(ctx, instance);
  }
  const before = services.keyRotation.pendingCounts(services.keys.get().currentId);
  const total = Object.values(before).reduce((a, b) => a + b, 0);
  ctx.info(`${total} row${total === 1 ? "" : "s"} to re-encrypt (${Object.entries(before).map(([k, v]) => `${k}: ${v}`).join(", ")}).`);
  let lastReport = 0;
  const result = await services.keyRotation.reencryptAll(() => services.keys.get(), {
    batchSize: options.batchSize,
    onProgress: (p) => {
      if (p.remaining === 0 || p.done - lastReport >= 10_000) {
        lastReport = p.done;
        ctx.info(`${p.set}: ${p.done} re-encrypted, ${p.remaining} left`);
      }
    },
  });
  if (result.remaining > 0) {
    throw new CliError(`${result.remaining} rows are still under an old key; the old key was kept. Run the command again.`, EXIT.error);
  }
  if (fromEnv) {
    ctx.info(`Done: every row is under key ${result.keyId}. Remove OUTREACH_SECRET_KEY_PREVIOUS from the environment.`);
  } else if (options.keepOld) {
    ctx.info(`Done: every row is under key ${result.keyId}; the old key was kept (--keep-old).`);
  } else {
    const retired = retireOldKeys(instance.dataDir);
    ctx.info(`Done: every row is under key ${result.keyId}; retired ${retired.join(", ") || "nothing"}. Back up the key file now: older backups need the old key.`);
  }
  ctx.io.stdout.write(result.keyId + "\n");
}

/** With the key file: a new key is added to it, or an interrupted rotation's new key is taken up again. */
function addOrResumeFileKey(ctx: CommandContext, instance: Instance): void {
  const file = join(instance.dataDir, KEY_FILE_NAME);
  if (!existsSync(file)) throw new UsageError(`no key file at ${file}`);
  const loaded = loadKeyring(instance.dataDir, {});
  // A rotation that was interrupted left several keys: finish it under its new key.
  if (loaded.keyIds.length > 1) ctx.info(`Resuming the rotation to key ${loaded.currentId}.`);
  else ctx.info(`Added key ${addKeyToKeyFile(instance.dataDir, instance.services.deps.clock.now())}; a running server picks it up for new writes.`);
  instance.services.keys.replace(loadKeyring(instance.dataDir, {}));
}
