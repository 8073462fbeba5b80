import type { H3Event } from "h3";
import type { z } from "zod";
import type { Principal } from "../services/auth.js";
import type { Services } from "../services/index.js";
import type { ErrorStyle, Logger } from "./errors.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * Who may call a route: `user` a personal access token, `team-key` a team API key,
 * `none` anyone (health, OpenAPI).
 */
export type RouteAuth = "user" | "team-key" | "none";

export interface RouteContext<B, Q> {
  event: H3Event;
  request: Request;
  services: Services;
  principal: Principal;
  body: B;
  query: Q;
  params: Record<string, string>;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /**
   * Aborts when the server, shutting down, wants in-flight work to end now with what it
   * has: unlike `signal`, the client is still there and gets a proper answer.
   */
  cutoff: AbortSignal;
  /** The client asked for NDJSON (`Accept: application/x-ndjson`). */
  wantsNdjson: boolean;
  /** The app's logger (stderr under `serve`; injected by tests and the CLI). */
  log: Logger;
}

/** Everything about one endpoint: the handler and what the OpenAPI document says of it. */
export interface RouteSpec<B extends z.ZodType | undefined = z.ZodType | undefined, Q extends z.ZodType | undefined = z.ZodType | undefined> {
  method: HttpMethod;
  /** h3 path pattern, `:name` for parameters. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteAuth;
  /** Not in service-api.md: added by this project (decisions.md). */
  addition?: boolean;
  /** Endpoint number in service-api.md, when it has one. */
  endpoint?: number;
  body?: B;
  query?: Q;
  response: z.ZodType;
  successStatus?: number;
  /** Also answers `application/x-ndjson` (section 6). */
  ndjson?: boolean;
  errorStyle?: ErrorStyle;
  /**
   * Fields added to every coded error body of this route when the caller is known and
   * the error did not set them itself (the lead search adds `quota`).
   */
  errorBody?(services: Services, principal: Principal): Record<string, unknown>;
  /** Error statuses to document besides the ones every authenticated route has. */
  errors?: number[];
  handler(
    ctx: RouteContext<B extends z.ZodType ? z.output<B> : undefined, Q extends z.ZodType ? z.output<Q> : undefined>,
  ): unknown;
}

/** Declare a route with its body and query types inferred from the schemas. */
export function defineRoute<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  spec: RouteSpec<B, Q>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** Compiled path pattern, for 405 detection. */
export function patternToRegExp(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}
