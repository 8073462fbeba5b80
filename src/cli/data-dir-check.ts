import { dataDirState } from "../services/data-dir-state.js";
import { CliError, EXIT } from "./exit-codes.js";

/**
 * Before a data directory is opened (and so created): a path that cannot be one, or a
 * folder of other files, is refused with one line (exit 2) instead of a raw EEXIST or a
 * database written among someone's documents; a new one made where the user named a path
 * (`--data-dir`, `OUTREACH_DATA_DIR`) is announced loudly, since a typo in that path
 * otherwise starts an empty data directory without a word. decisions.md: the CLI
 * initialises a data directory with defaults on first use and says so on stderr.
 *
 * `named`: the flag or variable that named it, undefined for the default directory.
 * Returns the warning to print, if any (a command that then initialises it with defaults
 * adds how to choose its owner: `outreach init`).
 */
export function checkDataDir(dir: string, named: "--data-dir" | "OUTREACH_DATA_DIR" | undefined): string | undefined {
  const what = named ? `${named} ${dir}` : `the data directory ${dir}`;
  const state = dataDirState(dir);
  switch (state.kind) {
    case "data":
      return undefined;
    case "file":
      throw new CliError(
        state.blocker === dir
          ? `${what} is a file, not a directory: name a directory (a new one is created if it does not exist)`
          : `${what} cannot be created: ${state.blocker} is a file, not a directory`,
        EXIT.usage,
      );
    case "foreign":
      throw new CliError(
        `${what} is not an outreach data directory (it holds other files and no outreach.db): name the data directory you use, or a new or empty one`,
        EXIT.usage,
      );
    case "missing":
    case "empty":
      if (!named) return undefined;
      return `creating a new data directory at ${dir} (${named} names no existing one; if you meant another, check the path)`;
  }
}
