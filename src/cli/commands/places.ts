import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
import { registerDownload } from "./places/download.js";
import { registerImport } from "./places/import.js";
import { registerReindex } from "./places/reindex.js";
import { registerStats } from "./places/stats.js";
import { registerUpdate } from "./places/update.js";

/**
 * `outreach places`: the local places index is the server's shared data, managed by the
 * operator on the machine that holds the data directory (like `outreach admin`), so these
 * commands open the store directly and refuse a remote server. Each verb is its own file in places/.
 */
export function registerPlaces(program: Command, ctx: CommandContext): void {
  const places = program.command("places").description("manage the local places index that lead searches use (import OSM, Overture, CSV/NDJSON; stats)");
  attachVerbs(places, ctx, registerImport, registerStats, registerDownload, registerUpdate, registerReindex);
}
