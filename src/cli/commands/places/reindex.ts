import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";

/** `outreach places reindex`: the packed search index rebuilt where it is out of date. */
export type ReindexOptions = JsonOption;

export function registerReindex(places: Command, ctx: CommandContext): void {
  defineVerb(
    places,
    {
      name: "reindex",
      description: "rebuild the packed search index where it is out of date (an import does this when it ends; needed only after one was killed)",
      json: true,
      examples: ["outreach places reindex"],
    },
  ).action((options: ReindexOptions) => runReindex(ctx, options));
}

export function runReindex(ctx: CommandContext, options: ReindexOptions): void {
  const result = ctx.openInstance().services.placesImport.reindex();
  if (options.json) return printJson(ctx.io, result);
  ctx.info(`${result.cells.toLocaleString("en")} cells rebuilt in ${result.seconds.toFixed(1)} s.`);
}
