import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/**
 * `$XDG_CONFIG_HOME/outreach/config.json`, mode 0600: the saved remote login and the
 * token of each local data directory. It holds tokens, so it is never world-readable.
 */
export interface CliConfig {
  remote?: { baseUrl: string; token: string };
  local?: Record<string, { token: string }>;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return resolve(base, "outreach", "config.json");
}

export class ConfigFileError extends Error {
  override name = "ConfigFileError";
}

export function loadConfig(env: NodeJS.ProcessEnv): CliConfig {
  const path = configPath(env);
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as CliConfig;
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    throw new ConfigFileError(`the config file ${path} is not valid JSON: fix or delete it`);
  }
}

export function saveConfig(env: NodeJS.ProcessEnv, config: CliConfig): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}

export function updateConfig(env: NodeJS.ProcessEnv, change: (config: CliConfig) => void): string {
  const config = loadConfig(env);
  change(config);
  return saveConfig(env, config);
}
