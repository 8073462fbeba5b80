import type { Command } from "commander";
import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { ApiClient, type RetryPolicy } from "../client/api-client.js";
import { LocalTransport, RemoteTransport } from "../client/transports.js";
import { systemClock, type Clock } from "../core/clock.js";
import { createApp } from "../server/app.js";
import type { ServerConfig } from "../services/config.js";
import { dataDirState } from "../services/data-dir-state.js";
import type { DkimKeyGenerator } from "../services/sending/dkim-keys.js";
import { databasePath, openInstance, resolveDataDir, type Instance } from "../services/instance.js";
import { loadConfig, updateConfig } from "./config.js";
import { CliError, EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import { paint, useColor } from "./output.js";

/** Options every command accepts (defined on the root program). */
export interface GlobalOptions {
  dataDir?: string;
  baseUrl?: string;
  token?: string;
}

/** What tests may inject besides I/O and environment. */
export interface RunDeps {
  clock?: Clock;
  /** Settings overrides for the in-process server (local mode, admin commands). */
  serverConfig?: Partial<ServerConfig>;
  /** The DKIM key generator of the in-process server (tests pass a fast one). */
  dkimKeys?: DkimKeyGenerator;
}

export type Mode = { kind: "remote"; baseUrl: string; token?: string } | { kind: "local"; dataDir: string };

/**
 * Per-invocation state: I/O, environment, global flags, and the API client, which is
 * made on first use so `--help` and usage errors never open a database.
 */
export class CommandContext {
  globals: GlobalOptions = {};
  /** The command being run (set before its action), to speak its flags in errors. */
  command?: Command;
  /** Whether the API client talks HTTP to a server (false: in-process on a data directory). */
  talksHttp?: boolean;
  private instances: Instance[] = [];
  private clientPromise?: Promise<ApiClient>;
  /** The data directory the API client works on in local mode. */
  private localInstance?: Instance;

  constructor(
    readonly io: CliIO,
    readonly env: NodeJS.ProcessEnv,
    readonly deps: RunDeps = {},
  ) {}

  /** The clock of this run: the injected one, else the system's. */
  get clock(): Clock {
    return this.deps.clock ?? systemClock;
  }

  get color() {
    return paint(useColor(this.io, this.env));
  }

  /** A line for the user on stderr (never on stdout, which is for data). */
  info(message: string): void {
    this.io.stderr.write(message + "\n");
  }

  warn(message: string): void {
    this.io.stderr.write(this.color.yellow("! ") + message + "\n");
  }

  dataDir(): string {
    return resolveDataDir(this.globals.dataDir, this.env);
  }

  /**
   * Remote when a base URL is given (flag or environment); local when a data directory
   * is given; otherwise the saved remote login if there is one, else local.
   */
  mode(): Mode {
    const baseUrl = this.globals.baseUrl ?? this.env.OUTREACH_BASE_URL;
    const explicitToken = this.globals.token ?? this.env.OUTREACH_TOKEN;
    if (baseUrl) {
      const saved = loadConfig(this.env).remote;
      const token = explicitToken ?? (saved && sameUrl(saved.baseUrl, baseUrl) ? saved.token : undefined);
      return { kind: "remote", baseUrl: normaliseBaseUrl(baseUrl), token };
    }
    if (this.globals.dataDir || this.env.OUTREACH_DATA_DIR) return { kind: "local", dataDir: this.dataDir() };
    const saved = loadConfig(this.env).remote;
    if (saved) return { kind: "remote", baseUrl: saved.baseUrl, token: explicitToken ?? saved.token };
    return { kind: "local", dataDir: this.dataDir() };
  }

  /**
   * Operator commands (`init`, `admin`, `places`) act on a local data directory, never
   * through the API. When the CLI otherwise talks to a server (`--base-url`,
   * `OUTREACH_BASE_URL` or a saved `auth login`), acting on the default directory
   * silently would do the work in the wrong place, so they refuse (exit 2) unless the
   * directory is named (`--data-dir` or `OUTREACH_DATA_DIR`). docs/cli.md, "Local or remote".
   */
  refuseOperatorOnRemote(command: string): void {
    if (this.globals.dataDir || this.env.OUTREACH_DATA_DIR) return;
    const baseUrl = this.globals.baseUrl ?? this.env.OUTREACH_BASE_URL;
    const server = baseUrl
      ? `${baseUrl} (${this.globals.baseUrl ? "--base-url" : "OUTREACH_BASE_URL"})`
      : loadConfig(this.env).remote && `${loadConfig(this.env).remote!.baseUrl} (the saved \`outreach auth login\`)`;
    if (!server) return;
    throw new CliError(
      `\`${command}\` acts on a local data directory, not on a server: this CLI talks to ${server}, ` +
        `and the directory it would use is ${this.dataDir()}. Pass --data-dir ${this.dataDir()} to act on that directory ` +
        `(on the server's machine, the server's own --data-dir)` +
        (command.startsWith("outreach admin") || command === "outreach init" ? "; to manage your tokens on the server, use `outreach auth tokens`." : "."),
      EXIT.usage,
    );
  }

  /** Open the data directory's store directly (init, admin, local transport). Closed by `close()`. */
  openInstance(dataDir = this.dataDir(), config: Partial<ServerConfig> = {}): Instance {
    const named = dataDir !== this.dataDir() ? undefined : this.globals.dataDir ? "--data-dir" : this.env.OUTREACH_DATA_DIR ? "OUTREACH_DATA_DIR" : undefined;
    const warning = checkDataDir(dataDir, named);
    // `init` is asked to create one, and its summary names the path.
    if (warning && this.command?.name() !== "init") this.warn(warning);
    const instance = openInstance({ dataDir, env: this.env, clock: this.deps.clock, config: { ...this.deps.serverConfig, ...config }, dkimKeys: this.deps.dkimKeys });
    this.instances.push(instance);
    return instance;
  }

  /**
   * The API client. `sampleOnFirstUse` (the lead search): a local data directory that this
   * very call initialises, with nothing imported, gets the bundled Monaco sample first, so
   * the README's first command gives real leads on a machine without network.
   */
  client(options: { sampleOnFirstUse?: boolean } = {}): Promise<ApiClient> {
    this.clientPromise ??= this.makeClient(options.sampleOnFirstUse === true);
    return this.clientPromise;
  }

  private async makeClient(sampleOnFirstUse = false): Promise<ApiClient> {
    const mode = this.mode();
    this.talksHttp = mode.kind === "remote";
    if (mode.kind === "remote") {
      if (!mode.token) {
        throw new CliError(`no token for ${mode.baseUrl}: pass --token, set OUTREACH_TOKEN, or run \`outreach auth login\``, EXIT.auth);
      }
      return new ApiClient(new RemoteTransport(mode.baseUrl), mode.token, this.retryPolicy());
    }
    // The caller owns the data directory: no rate limit between it and itself
    // (docs/cli.md, "Local or remote"). A server's limit is for its many callers.
    const instance = this.openInstance(mode.dataDir, { rateLimitPerMinute: 0 });
    this.localInstance = instance;
    const firstUse = instance.services.identity.users.count() === 0;
    const token = this.globals.token ?? this.env.OUTREACH_TOKEN ?? this.localToken(instance);
    if (sampleOnFirstUse && firstUse && instance.services.placesImport.isEmpty()) {
      this.info("The places index is empty: importing the bundled sample, Monaco (© OpenStreetMap contributors, ODbL 1.0), to search it now.");
      const summary = await instance.services.placesImport.importSample({ signal: this.io.signal });
      this.info(`${summary.total} places imported. For your own area: \`outreach places download <region> --import\` (\`outreach places download --list\` lists regions).`);
    }
    const app = createApp(instance.services, { log: (line) => this.io.stderr.write(line + "\n") });
    return new ApiClient(new LocalTransport(mode.dataDir, app.fetch), token);
  }

  /**
   * What becomes of messages just queued, as far as this CLI can know: on a local data
   * directory, whether a relay is configured (without one nothing is ever sent); a server
   * delivers through its own relay, which the CLI cannot see.
   */
  queuedMessagesFate(): string {
    if (!this.localInstance) return "the server sends them through its relay once one is configured there (OUTREACH_SMTP_URL)";
    if (!this.localInstance.services.deps.config.smtp) {
      return "nothing is sent until a relay is configured: set OUTREACH_SMTP_URL (and OUTREACH_PUBLIC_URL), then run `outreach serve` or `outreach deliver`";
    }
    return "`outreach serve` (running on this data directory) or `outreach deliver` sends them";
  }

  /** Against a server, a 429 is waited out (Retry-After) and the request sent again, saying so on stderr. */
  private retryPolicy(): RetryPolicy {
    return {
      sleep: (ms, signal) => this.clock.sleep(ms, signal),
      notice: (message) => this.info(message),
    };
  }

  /**
   * The token for a local data directory: the saved one, or on first use a fresh
   * directory initialised with defaults. Whoever can read the data directory can act
   * as its owner anyway (as `outreach admin` does), so a missing token is re-issued.
   */
  private localToken(instance: Instance): string {
    const dataDir = instance.dataDir;
    const saved = loadConfig(this.env).local?.[dataDir]?.token;
    const identity = instance.services.identity;
    if (saved && this.tokenWorks(instance, saved)) return saved;
    let token: string;
    if (identity.users.count() === 0) {
      const result = identity.bootstrapDefault(safeUserName(this.env));
      token = result.token;
      this.info(`Initialised a new data directory at ${dataDir} (user ${result.user.email}, workspace "${result.team.name}", plan self-hosted).`);
      this.info("Run `outreach init` to choose the name, email and workspace (it renames these).");
    } else {
      const owner = instance.services.deps.db
        .prepare("SELECT u.id, u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.role = 'owner' ORDER BY m.created_at LIMIT 1")
        .get() as { id: string; email: string } | undefined;
      if (!owner) throw new CliError(`the data directory ${dataDir} has no workspace owner; use \`outreach admin\` to create one`, EXIT.auth);
      token = identity.issuePersonalToken(owner.id, "cli").raw;
      this.info(`No saved token for ${dataDir}: issued a new one for ${owner.email}.`);
    }
    updateConfig(this.env, (config) => {
      config.local = { ...config.local, [dataDir]: { token } };
    });
    return token;
  }

  private tokenWorks(instance: Instance, token: string): boolean {
    try {
      instance.services.auth.authenticate(`Bearer ${token}`);
      return true;
    } catch {
      return false;
    }
  }

  isInitialised(dataDir: string): boolean {
    return existsSync(databasePath(dataDir));
  }

  close(): void {
    for (const instance of this.instances.splice(0)) instance.close();
  }
}

function normaliseBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--base-url ${JSON.stringify(url)} is not a URL (expected e.g. http://127.0.0.1:8787)`, EXIT.usage);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(`--base-url must be an http:// or https:// URL`, EXIT.usage);
  }
  return parsed.toString().replace(/\/+$/, "");
}

function sameUrl(a: string, b: string): boolean {
  try {
    return normaliseBaseUrl(a) === normaliseBaseUrl(b);
  } catch {
    return false;
  }
}

function safeUserName(env: NodeJS.ProcessEnv): string {
  try {
    return env.USER || userInfo().username || "Local user";
  } catch {
    return "Local user";
  }
}

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
function checkDataDir(dir: string, named: "--data-dir" | "OUTREACH_DATA_DIR" | undefined): string | undefined {
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
