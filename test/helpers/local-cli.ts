import { openInstance } from "../../src/services/instance.js";
import { cliEnv, runCli, type CliResult } from "./cli.js";
import { insertContact } from "./contacts.js";
import { tempDir } from "./data-dir.js";

/** A CLI environment on its own local data directory, initialised by a first command. */
export async function localCli(): Promise<{ env: NodeJS.ProcessEnv; dataDir: string; teamId: string; run(argv: string[], tty?: boolean): Promise<CliResult> }> {
  const dataDir = tempDir();
  const env = cliEnv({ OUTREACH_DATA_DIR: dataDir });
  const run = (argv: string[], tty = false) => runCli(argv, { env, tty });
  const init = await run(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"]);
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  const whoami = await run(["whoami", "--json"]);
  if (whoami.code !== 0) throw new Error(`whoami failed: ${whoami.stderr}`);
  return { env, dataDir, teamId: (JSON.parse(whoami.stdout) as { activeTeam: { id: string } }).activeTeam.id, run };
}

/** A contact in a local data directory, added by a second opener as another process would. */
export function addLocalContact(dataDir: string, teamId: string, env: NodeJS.ProcessEnv): string {
  const instance = openInstance({ dataDir, env });
  try {
    return insertContact(instance.services, teamId);
  } finally {
    instance.close();
  }
}
