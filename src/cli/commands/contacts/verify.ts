import type { Command } from "commander";
import type { VerifyResult } from "../../../core/schemas/verification.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { mutuallyExclusive } from "../../flags.js";
import { printJson } from "../../output.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb } from "../shared.js";
import { tallyText } from "./contact-flags.js";

/** `outreach contacts verify [IDS...] | --all`: each address checked, with the reason. */
export interface VerifyOptions {
  /** The request body: the contacts named, or every one. */
  body: { all: true } | { contactIds: string[] };
  json?: boolean;
}

export function registerVerify(contacts: Command, ctx: CommandContext): void {
  defineVerb(
    contacts,
    {
      name: "verify",
      description: "check addresses: deliverable, undeliverable, risky or unknown, with the reason (SMTP probe with OUTREACH_VERIFY_SMTP=1)",
      json: true,
      examples: ["outreach contacts verify --all", "outreach contacts verify ct_3kF9x2aB7cD1eF4g ct_8hJ2k4mN6pQ8rS1t", "outreach contacts list --verification undeliverable"],
    },
    (command) =>
      command
        .argument("[ids...]", "contact ids (ct_…), up to 1,000")
        .option("--all", "every contact of the workspace (an interrupted run is continued)"),
  ).action((ids: string[], flags: { all?: boolean; json?: boolean }) => runVerify(ctx, parseVerifyOptions(ids, flags)));
}

export function parseVerifyOptions(ids: string[], flags: { all?: boolean; json?: boolean }): VerifyOptions {
  mutuallyExclusive({ "--all": flags.all, "contact ids": ids.length > 0 }, "give contact ids or --all, not both");
  if (!flags.all && ids.length === 0) throw new UsageError("give contact ids or --all");
  return { body: flags.all ? { all: true as const } : { contactIds: ids }, json: flags.json };
}

export async function runVerify(ctx: CommandContext, options: VerifyOptions): Promise<void> {
  const client = await ctx.client();
  const spinner = progressSpinner(ctx.io, "verifying…");
  let result: VerifyResult | undefined;
  try {
    for await (const event of client.stream("contacts.verify", { body: options.body, signal: ctx.io.signal })) {
      if (event.type === "progress") {
        const p = event.data;
        spinner.update(`verified ${p.checked}${p.total === null ? "" : ` of ${p.total}`}: ${tallyText(p.byStatus)}`);
      } else result = event.data;
    }
  } catch (err) {
    // What was verified stays verified (each contact is written as it is checked).
    spinner.fail("stopped: the contacts verified so far keep their result");
    // Ctrl-C: the server side may have reported the abort before the client saw it.
    if (ctx.io.signal?.aborted) throw Object.assign(new Error("interrupted"), { name: "AbortError" });
    throw err;
  }
  spinner.stop();
  if (!result) return;
  if (options.json) return printJson(ctx.io, result);
  ctx.io.stdout.write(`verified ${result.checked}: ${tallyText(result.byStatus)}\n`);
}
