import type { H3Event } from "h3";
import type { z } from "zod";
import { contract, type Operation, type OperationId, type BodyOf, type ParamsOf, type QueryOf, type ResponseOf, type SchemaOutput } from "../core/contract/index.js";
import type { Principal } from "../services/access/auth.js";
import type { Services } from "../services/index.js";
import type { Logger } from "./errors.js";
import type { TurnKind } from "./request-turns.js";

export type { HttpMethod } from "../core/contract/index.js";

interface RequestContext {
  event: H3Event;
  request: Request;
  services: Services;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /**
   * Aborts when the server, shutting down, wants in-flight work to end now with what it
   * has: unlike `signal`, the client is still there and gets a proper answer.
   */
  cutoff: AbortSignal;
  /** The client asked for NDJSON (`Accept: application/x-ndjson`) and the operation streams. */
  wantsNdjson: boolean;
  /** The app's logger (stderr under `serve`; injected by tests and the CLI). */
  log: Logger;
  /**
   * Wait for another turn (`server/request-turns.ts`) before more synchronous database work
   * after an await: an import's next slice. The handler's first synchronous part has one already.
   */
  turn(kind: TurnKind): Promise<void>;
}

/** What a handler gets: the request parsed and validated against its operation's schemas. */
export type RouteContext<O> = RequestContext & {
  /** The caller; undefined only on operations with auth `none`. */
  principal: O extends { auth: "none" } ? undefined : Principal;
  body: SchemaOutput<BodyOf<O>>;
  query: SchemaOutput<QueryOf<O>>;
  params: ParamsOf<O> extends z.ZodType ? z.output<ParamsOf<O>> : Record<string, never>;
};

/** The same, as the app builds it for any operation. */
export type AnyRouteContext = RequestContext & { principal: Principal | undefined; body: unknown; query: unknown; params: unknown };

/**
 * What a handler may answer: what the operation's response schema accepts (`z.input`:
 * the server serialises it, the client parses it), or a ready Response on operations that
 * stream (NDJSON) or produce a page (HTML). Checked at compile time.
 */
export type HandlerResult<O> = z.input<ResponseOf<O>> | (O extends { stream: object } | { produces: string } ? Response : never);

export type RouteHandler<K extends OperationId> = (ctx: RouteContext<(typeof contract)[K]>) => HandlerResult<(typeof contract)[K]> | Promise<HandlerResult<(typeof contract)[K]>>;

/**
 * A handler, or a handler with `errorBody`: fields added to every coded error body of the
 * route when the caller is known and the error did not set them itself (the lead search
 * adds `quota`).
 */
export type RouteBinding<K extends OperationId> =
  | RouteHandler<K>
  | { handler: RouteHandler<K>; errorBody(services: Services, principal: Principal): Record<string, unknown> };

/** One handler per operation of the contract: a missing one does not compile. */
export type RouteBindings = { [K in OperationId]: RouteBinding<K> };

/** An operation with its handler: what the app mounts. */
export type RouteSpec = Operation & {
  handler(ctx: AnyRouteContext): unknown;
  errorBody?(services: Services, principal: Principal): Record<string, unknown>;
};

/** The route table: every operation of the contract bound to its handler, in the contract's order. */
export function bindRoutes(bindings: RouteBindings): RouteSpec[] {
  return (Object.keys(contract) as OperationId[]).map((id) => {
    const binding = bindings[id] as RouteBinding<OperationId>;
    const bound = typeof binding === "function" ? { handler: binding } : binding;
    return { ...contract[id], handler: bound.handler as RouteSpec["handler"], errorBody: "errorBody" in bound ? bound.errorBody : undefined };
  });
}

/** Compiled path pattern, for 405 detection. */
export function patternToRegExp(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}
