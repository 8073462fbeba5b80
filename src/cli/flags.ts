import { checkEncodingName } from "../core/text-file.js";
import { UsageError } from "./exit-codes.js";

/**
 * Flag values checked where they are parsed, so a typo is a usage error (exit 2) that
 * names the flag, before any request. The server still checks every bound it owns (its
 * 400 names the field); these only make sure the value is of the right kind.
 */

/** A number (`--lat 47.14`), or undefined when the flag was not given. */
export function numberFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`${flag} must be a number (got ${JSON.stringify(value)})`);
  return n;
}

/** A whole number within `min`..`max` (either may be open), or undefined when the flag was not given. */
export function intFlag(flag: string, value: string | undefined, { min, max }: { min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\s*-?[0-9]+\s*$/.test(value) || (min !== undefined && n < min) || (max !== undefined && n > max)) {
    const range = min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` ≥ ${min}` : max !== undefined ? ` ≤ ${max}` : "";
    throw new UsageError(`${flag} must be a whole number${range} (got ${JSON.stringify(value)})`);
  }
  return n;
}

/** A limit: a whole number ≥ 0, or `unlimited` → null. */
export function limitFlag(flag: string, value: string | undefined): number | null | undefined {
  if (value === "unlimited") return null;
  try {
    return intFlag(flag, value, { min: 0 });
  } catch {
    throw new UsageError(`${flag} must be a whole number ≥ 0 or "unlimited" (got ${JSON.stringify(value)})`);
  }
}

/** `10m`, `30s`, `1h`, `500ms`, or a bare number of seconds → milliseconds. */
export function durationFlag(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a duration like 30s, 10m or 1h (got ${JSON.stringify(value)})`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"];
  return Math.round(Number(match[1]) * unit);
}

/**
 * At most one of these flags (by name, with the value the command got): the GitHub CLI's
 * MutuallyExclusive. `message` replaces the default `use only one of …` where a reason helps.
 */
export function mutuallyExclusive(flags: Record<string, unknown>, message?: string): void {
  const given = Object.entries(flags)
    .filter(([, v]) => v !== undefined && v !== false && v !== null)
    .map(([name]) => name);
  if (given.length > 1) throw new UsageError(message ?? `use only one of ${Object.keys(flags).join(", ")} (got ${given.join(" and ")})`);
}

/**
 * How many pages to fetch: `--pages N` (≥ 1), every page with `--all`, else one. Both given
 * contradict each other (`--pages 2 --all` was taken as --all without a word): exit 2 naming both.
 */
export function pagesFlag(pages: string | undefined, all: boolean | undefined): number {
  mutuallyExclusive({ "--pages": pages, "--all": all }, `--pages ${pages} contradicts --all (which fetches every page): give one of them`);
  return all ? Number.POSITIVE_INFINITY : (intFlag("--pages", pages, { min: 1 }) ?? 1);
}

/** Flags a command cannot do without although commander treats them as optional (their absence is checked late, or together). */
export function requireFlags(values: Record<string, unknown>, names: Record<string, string>): void {
  const missing = Object.entries(names)
    .filter(([key]) => values[key] === undefined || values[key] === "")
    .map(([, flag]) => flag);
  if (missing.length) throw new UsageError(`missing ${missing.join(", ")}`);
}

/** One of the allowed values (`--sort distance`), or undefined when the flag was not given. */
export function choiceFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got ${JSON.stringify(value)})`);
  return value as T;
}

/** A comma list of allowed values (`--status active,unsubscribed`), each checked; undefined when not given. */
export function choiceListFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(",").map((s) => s.trim()).filter(Boolean);
  const bad = items.filter((s) => !(allowed as readonly string[]).includes(s));
  if (bad.length) throw new UsageError(`${flag} must be a comma list of ${allowed.join(", ")} (got ${bad.map((b) => JSON.stringify(b)).join(", ")})`);
  return items as T[];
}

/** `--encoding NAME`: a text encoding this machine knows, checked before any file is opened; undefined when not given. */
export function encodingFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    checkEncodingName(value);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return value;
}
