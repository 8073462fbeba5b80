import { ApiError } from "../client/api-client.js";
import { TransportError } from "../client/transports.js";
import { isAppError } from "../core/errors.js";

/** Exit codes (docs/cli.md, "Exit codes"). Scripts rely on these numbers. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  conflict: 5,
  quota: 6,
  interrupted: 130,
} as const;

/** A mistake in how the command was called: exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A failure whose message is already user-facing, with its exit code. */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const QUOTA_CODES = new Set(["quota_exceeded", "rate_limited", "provider_error"]);

export function exitCodeForApiError(err: { status: number; code?: string }): number {
  if (err.code && QUOTA_CODES.has(err.code)) return EXIT.quota;
  // No AI model configured: a missing server setting, like a ConfigError (exit 2).
  if (err.code === "ai_not_configured") return EXIT.usage;
  switch (err.status) {
    case 400:
    case 413:
    case 415:
      return EXIT.usage;
    case 401:
    case 403:
      return EXIT.auth;
    case 404:
      return EXIT.notFound;
    case 409:
      return EXIT.conflict;
    case 429:
      return EXIT.quota;
    default:
      return EXIT.error;
  }
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof UsageError) return EXIT.usage;
  // A server setting that is missing or malformed (OUTREACH_SMTP_URL, OUTREACH_PUBLIC_URL, …): the
  // operator's to fix, like a flag. By name: only the operator commands may import services/config.ts.
  if (err instanceof Error && err.name === "ConfigError") return EXIT.usage;
  if (err instanceof ApiError) return exitCodeForApiError(err);
  // Admin commands call services directly: their errors carry the same statuses.
  if (isAppError(err)) return exitCodeForApiError(err);
  if (err instanceof TransportError) return EXIT.error;
  // Ctrl-C: an aborted request, a prompt closed (ExitPromptError) or aborted through the signal (AbortPromptError).
  if (err instanceof Error && ["AbortError", "ExitPromptError", "AbortPromptError"].includes(err.name)) return EXIT.interrupted;
  return EXIT.error;
}
