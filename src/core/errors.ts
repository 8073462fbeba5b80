/**
 * The one error type services throw. The server maps it to an HTTP status and
 * `{error, code?, quota?}`; the CLI maps the HTTP answer to an exit code. Messages
 * are meant for users: never put stack traces, SQL or file paths in them.
 */
export type ErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "quota_exceeded"
  | "contact_limit_reached"
  | "rate_limited"
  | "provider_error"
  | "ai_not_configured"
  | "retry_token_invalid"
  | "shutting_down"
  | "internal_error";

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  quota_exceeded: 403,
  contact_limit_reached: 403,
  rate_limited: 429,
  provider_error: 500,
  ai_not_configured: 503,
  retry_token_invalid: 404,
  shutting_down: 503,
  internal_error: 500,
};

/**
 * The HTTP status a `code` stands for; 500 for a code this program does not know. The
 * client maps an NDJSON error line through it, so a failure inside a stream gets the exit
 * code the same failure before the stream would have had.
 */
export function statusOfCode(code: string | undefined): number {
  return code !== undefined && Object.hasOwn(STATUS_BY_CODE, code) ? STATUS_BY_CODE[code as ErrorCode] : 500;
}

export interface AppErrorOptions {
  /** Extra fields for the error body (e.g. `quota` on lead search errors). */
  body?: Record<string, unknown>;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
  /** A status other than the code's own (the AI model's `provider_error` is a 502: an upstream answered badly). */
  status?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.body = options.body ?? {};
    this.headers = options.headers ?? {};
  }
}

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;

export const badRequest = (message: string, options?: AppErrorOptions) =>
  new AppError("invalid_request", message, options);
export const unauthorized = (message = "unauthorized", options?: AppErrorOptions) =>
  new AppError("unauthorized", message, options);
export const forbidden = (message: string, options?: AppErrorOptions) => new AppError("forbidden", message, options);
export const notFound = (message: string, options?: AppErrorOptions) => new AppError("not_found", message, options);
export const conflict = (message: string, options?: AppErrorOptions) => new AppError("conflict", message, options);
