import type { z } from "zod";
import { QuotaResponse } from "../core/schemas/quota.js";
import { SwitchTeamResponse, TeamsResponse } from "../core/schemas/team.js";
import { User } from "../core/schemas/user.js";
import { API_ORIGIN_FOR_LOCAL, RemoteTransport, type Transport } from "./transports.js";

/** An error answer from the API: status and body as the server sent them. */
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

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  signal?: AbortSignal;
}

/** One parsed NDJSON line. */
export type StreamLine = { type: "progress" | "complete"; data: unknown } | { type: "error"; error: string; code?: string; quota?: unknown };

function queryString(query: RequestOptions["query"]): string {
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

/**
 * The typed client every CLI command uses. Responses are checked against the same zod
 * schemas the server validates with, so a remote server that answers something else
 * is reported plainly instead of breaking a command later.
 */
export class ApiClient {
  constructor(
    readonly transport: Transport,
    private readonly token: string | undefined,
  ) {}

  /** The same server with another bearer (a team API key for one call, say). */
  withToken(token: string): ApiClient {
    return new ApiClient(this.transport, token);
  }

  private url(path: string): string {
    return this.transport instanceof RemoteTransport ? this.transport.url(path) : API_ORIGIN_FOR_LOCAL + path;
  }

  private buildRequest(method: string, path: string, options: RequestOptions, accept: string): Request {
    const headers: Record<string, string> = { accept };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    return new Request(this.url(path + queryString(options.query)), { method, headers, body, signal: options.signal });
  }

  /** A JSON request; the answer is validated with `schema`. */
  async request<S extends z.ZodType>(method: string, path: string, schema: S, options: RequestOptions = {}): Promise<z.output<S>> {
    const response = await this.transport.send(this.buildRequest(method, path, options, "application/json"));
    if (!response.ok) throw await readError(response);
    const text = await response.text();
    let value: unknown;
    try {
      value = text ? JSON.parse(text) : undefined;
    } catch {
      throw new ApiError(response.status, `the server at ${this.transport.target} answered ${path} with something that is not JSON`, undefined, {}, response.headers);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const where = parsed.error.issues.map((i) => i.path.join(".") || "(root)").slice(0, 5).join(", ");
      throw new ApiError(response.status, `unexpected answer from the server for ${path} (at ${where})`, undefined, {}, response.headers);
    }
    return parsed.data;
  }

  /** An NDJSON request: yields each line as it arrives. */
  async *stream(method: string, path: string, options: RequestOptions = {}): AsyncGenerator<StreamLine> {
    const response = await this.transport.send(this.buildRequest(method, path, options, "application/x-ndjson"));
    if (!response.ok) throw await readError(response);
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line) yield JSON.parse(line) as StreamLine;
        }
      }
      const rest = (buffer + decoder.decode()).trim();
      if (rest) yield JSON.parse(rest) as StreamLine;
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  me() {
    return this.request("GET", "/api/v1/user/me", User);
  }

  teams() {
    return this.request("GET", "/api/v1/teams", TeamsResponse);
  }

  switchTeam(teamId: string) {
    return this.request("POST", "/api/v1/teams/switch", SwitchTeamResponse, { body: { teamId } });
  }

  quota() {
    return this.request("GET", "/api/v1/quota", QuotaResponse);
  }
}
