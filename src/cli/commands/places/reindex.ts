import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { example, type JsonOption, withJson } from "../shared.js";

/** `outreach places reindex`: the packed search index rebuilt where it is out of date. */
export type ReindexOptions = JsonOption;

export function registerReindex(places: Command, ctx: CommandContext): void {
  const command = withJson(
    places.command("reindex").description("rebuild the packed search index where it is out of date (an import does this when it ends; needed only after one was killed)"),
  ).action((options: ReindexOptions) => runReindex(ctx, options));
  example(command, "outreach places reindex");
}

export function runReindex(ctx: CommandContext, options: ReindexOptions): void {
  const result = ctx.openInstance().services.placesImport.reindex();
  if (options.json) return printJson(ctx.io, result);
  ctx.info(`${result.cells.toLocaleString("en")} cells rebuilt in ${result.seconds.toFixed(1)} s.`);
}
