import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { retryAfterSeconds } from "../core/retry-after.js";
import {
  contract,
  fillPath,
  type BodyOf,
  type Contract,
  type OperationId,
  type OperationSpec,
  type ParamsOf,
  type ProgressOf,
  type QueryOf,
  type ResponseOf,
  type StreamOperationId,
} from "../core/contract/index.js";
import { statusOfCode } from "../core/errors.js";
import { API_ORIGIN_FOR_LOCAL, RemoteTransport, type Transport } from "./transports.js";

/** An error answer from the API: status and body as the server sent them (an NDJSON error line's body is the line). */
export class ApiError extends Error {
  override name = "ApiError";

  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
    readonly body: Record<string, unknown>,
    readonly headers: Headers,
  ) {
    super(message);
  }
}

/**
 * A query value as it may be given: query parameters travel as text, so where the schema
 * takes any string a number is accepted too (it is sent as its decimal text).
 */
type QueryValue<T> = T extends string ? (string extends T ? T | number : T) : T;
type QueryInput<Q> = { [K in keyof Q]?: QueryValue<Q[K]> | null };

type Slot<Name extends string, S, Wire> = S extends z.ZodType
  ? {} extends z.input<S>
    ? { [K in Name]?: Wire }
    : { [K in Name]: Wire }
  : { [K in Name]?: never };

/** What a call sends: `params`, `query` and `body` typed from the operation's schemas (`z.input`), and a signal. */
export type CallInput<K extends OperationId> = Slot<"params", ParamsOf<Contract[K]>, z.input<Extract<ParamsOf<Contract[K]>, z.ZodType>>> &
  Slot<"query", QueryOf<Contract[K]>, QueryInput<z.input<Extract<QueryOf<Contract[K]>, z.ZodType>>>> &
  Slot<"body", BodyOf<Contract[K]>, z.input<Extract<BodyOf<Contract[K]>, z.ZodType>>> & {
    signal?: AbortSignal;
    /** `false`: a 429 is the caller's to handle (it waits on its own terms), not the retry policy's. */
    waitOnRateLimit?: false;
  };

/** The input is optional when nothing in it is required. */
type CallArgs<K extends OperationId> = {} extends CallInput<K> ? [input?: CallInput<K>] : [input: CallInput<K>];

/** What a call returns: the operation's response as the schema parses it (`z.output`). */
export type CallResult<K extends OperationId> = z.output<ResponseOf<Contract[K]>>;

/** One line of a stream as it arrives, checked against the operation's schemas; `raw` is the line's text. */
export type StreamEvent<K extends StreamOperationId> =
  | { type: "progress"; data: z.output<ProgressOf<Contract[K]>>; raw: string }
  | { type: "complete"; data: CallResult<K>; raw: string };

type RequestInput = { params?: unknown; query?: unknown; body?: unknown; signal?: AbortSignal; waitOnRateLimit?: false };

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

async function readError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object") body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: keep the status line
  }
  const message = typeof body.error === "string" ? body.error : `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  return new ApiError(response.status, message, typeof body.code === "string" ? body.code : undefined, body, response.headers);
}

/** Where a parse failed, for a message: the first few paths. */
function issuePaths(error: z.ZodError): string {
  return error.issues.map((i) => i.path.join(".") || "(root)").slice(0, 5).join(", ");
}

/**
 * What the client does with a 429 (rate limited): wait what the server's `Retry-After`
 * asks and send the request again, at most `maxRetries` times per request, saying so
 * through `notice`; a wait longer than `maxWaitSeconds` is not waited out (the 429 is the
 * answer). Without a policy a 429 is returned as it is.
 */
export interface RetryPolicy {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  notice(message: string): void;
  /** Default 5. */
  maxRetries?: number;
  /** Default 120. */
  maxWaitSeconds?: number;
}

/**
 * The typed client every CLI command uses, derived from the API contract
 * (src/core/contract/): `call("contacts.add", {body})`, `stream("leads.search", {body})`.
 * Answers are checked against the same zod schemas the server validates with, so a remote
 * server that answers something else is reported plainly instead of breaking a command later.
 */
export class ApiClient {
  constructor(
    readonly transport: Transport,
    private readonly token: string | undefined,
    private readonly retry?: RetryPolicy,
  ) {}

  /** The same server with another bearer (a team API key for one call, say). */
  withToken(token: string): ApiClient {
    return new ApiClient(this.transport, token, this.retry);
  }

  /** Send one operation; a 429 is waited out and sent again as the retry policy says. */
  private async send(id: OperationId, input: RequestInput | undefined, accept: string): Promise<Response> {
    const maxRetries = this.retry?.maxRetries ?? 5;
    // One key for the call and all its retries: a repeat can never create twice.
    const idempotencyKey = (contract[id] as OperationSpec).idempotent ? randomUUID() : undefined;
    for (let attempt = 1; ; attempt++) {
      const response = await this.transport.send(this.buildRequest(id, input, accept, idempotencyKey));
      if (response.status !== 429 || !this.retry || input?.waitOnRateLimit === false || attempt > maxRetries) return response;
      // Without Retry-After: 1, 2, 4, 8, 16 seconds.
      const wait = retryAfterSeconds(response.headers.get("retry-after")) ?? 2 ** (attempt - 1);
      if (wait > (this.retry.maxWaitSeconds ?? 120)) return response;
      await response.body?.cancel().catch(() => {});
      this.retry.notice(`rate limited by ${this.transport.target}: waiting ${wait} s as it asks, then retrying (${attempt} of ${maxRetries})`);
      await this.retry.sleep(wait * 1000, input?.signal);
    }
  }

  /** One operation, answered as JSON. */
  async call<K extends OperationId>(id: K, ...[input]: CallArgs<K>): Promise<CallResult<K>> {
    const operation = contract[id];
    const response = await this.send(id, input, "application/json");
    if (!response.ok) throw await readError(response);
    const text = await response.text();
    let value: unknown;
    try {
      value = text ? JSON.parse(text) : undefined;
    } catch {
      throw new ApiError(response.status, `the server at ${this.transport.target} answered ${operation.path} with something that is not JSON`, undefined, {}, response.headers);
    }
    const parsed = operation.response.safeParse(value);
    if (!parsed.success) {
      throw new ApiError(response.status, `unexpected answer from the server for ${operation.path} (at ${issuePaths(parsed.error)})`, undefined, {}, response.headers);
    }
    return parsed.data as CallResult<K>;
  }

  /**
   * One operation, answered as NDJSON: yields each `progress` line and the `complete` line
   * as they arrive, checked against the operation's schemas. An `error` line becomes an
   * ApiError with the status its code stands for (its `body` is the line), as the same
   * failure before the stream would have been; a stream that ends without a `complete`
   * line is an error too.
   */
  async *stream<K extends StreamOperationId>(id: K, ...[input]: CallArgs<K>): AsyncGenerator<StreamEvent<K>> {
    const operation = contract[id];
    const response = await this.send(id, input, "application/x-ndjson");
    if (!response.ok) throw await readError(response);
    const unexpected = (what: string) => new ApiError(200, `${what} from the server for ${operation.path}`, undefined, {}, response.headers);
    const toEvent = (raw: string): StreamEvent<K> => {
      let line: { type?: unknown; data?: unknown; error?: unknown; code?: unknown };
      try {
        line = JSON.parse(raw) as typeof line;
      } catch {
        throw unexpected("a stream line that is not JSON");
      }
      if (line.type === "error") {
        const code = typeof line.code === "string" ? line.code : undefined;
        throw new ApiError(statusOfCode(code), String(line.error ?? "error"), code, line as Record<string, unknown>, response.headers);
      }
      const schema = line.type === "complete" ? operation.response : line.type === "progress" ? operation.stream.progress : undefined;
      if (!schema) throw unexpected(`a stream line of unknown type ${JSON.stringify(line.type)}`);
      const parsed = schema.safeParse(line.data);
      if (!parsed.success) throw unexpected(`an unexpected ${String(line.type)} line (at ${issuePaths(parsed.error)})`);
      return { type: line.type, data: parsed.data, raw } as StreamEvent<K>;
    };
    if (!response.body) throw unexpected("an empty stream");
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    // An abort stops the reading at once: over HTTP fetch ends the body itself, but a local
    // server's body is a stream in this process that knows nothing of the signal.
    const signal = input?.signal;
    const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        signal?.throwIfAborted();
        const { value, done } = await reader.read();
        signal?.throwIfAborted();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (!line) continue;
          const event = toEvent(line);
          yield event;
          if (event.type === "complete") return;
        }
      }
      const rest = (buffer + decoder.decode()).trim();
      if (rest) {
        const event = toEvent(rest);
        yield event;
        if (event.type === "complete") return;
      }
      throw unexpected("a stream that ended without a result");
    } finally {
      signal?.removeEventListener("abort", onAbort);
      await reader.cancel().catch(() => {});
    }
  }

  private buildRequest(id: OperationId, input: RequestInput | undefined, accept: string, idempotencyKey?: string): Request {
    const operation = contract[id];
    const headers: Record<string, string> = { accept };
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (input?.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(input.body);
    }
    const path = fillPath(operation.path, input?.params as Record<string, unknown> | undefined) + queryString(input?.query as Record<string, unknown> | undefined);
    const url = this.transport instanceof RemoteTransport ? this.transport.url(path) : API_ORIGIN_FOR_LOCAL + path;
    return new Request(url, { method: operation.method, headers, body, signal: input?.signal });
  }
}
