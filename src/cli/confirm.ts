import { confirm } from "@inquirer/prompts";
import type { CommandContext } from "./context.js";
import { UsageError } from "./exit-codes.js";
import { promptContext } from "./io.js";

/**
 * Whether a verb that deletes may go on: at once with --yes; else only on a terminal, once
 * the user has answered `question` with yes (default no). Without a terminal and without
 * --yes it is refused with `refusal` (exit 2): a script must say --yes. A no says `declined`.
 */
export async function confirmed(
  ctx: CommandContext,
  { yes, refusal, question, declined }: { yes?: boolean; refusal: string; question: () => string | Promise<string>; declined: string },
): Promise<boolean> {
  if (yes) return true;
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) throw new UsageError(refusal);
  const ok = await confirm({ message: await question(), default: false }, promptContext(ctx.io));
  if (!ok) ctx.info(declined);
  return ok;
}
