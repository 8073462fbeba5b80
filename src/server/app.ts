import { getRouterParams, H3, type H3Event } from "h3";
import { AppError, forbidden, isAppError } from "../core/errors.js";
import { parseOrThrow } from "../core/validation.js";
import type { Principal } from "../services/access/auth.js";
import type { Services } from "../services/index.js";
import { AuthThrottle } from "./auth-throttle.js";
import { readJsonBody } from "./body.js";
import { corsHeaders, preflightHeaders } from "./cors.js";
import { API_HEADERS, errorResponse, jsonResponse, type Logger } from "./errors.js";
import { buildOpenApiDocument } from "./openapi.js";
import { REQUEST_ID_HEADER, requestIdOf } from "./request-id.js";
import { patternToRegExp, type AnyRouteContext, type RouteSpec } from "./route.js";
import { allRoutes } from "./routes/index.js";
import { RequestTurns } from "./request-turns.js";
import { IdempotencyService, type IdempotentStart, type StoredAnswer } from "../services/idempotency.js";

/** The header of idempotent requests (docs/api.md, "Idempotent requests"). */
const IDEMPOTENCY_HEADER = "idempotency-key";

/** A stored answer, replayed as it was first given. */
function storedResponse(answer: StoredAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.type ? { "content-type": answer.type } : {} });
}

export interface ApiApp {
  /** A fetch handler: used in-process by the CLI's local transport and by `serve`. */
  fetch(request: Request): Promise<Response>;
  h3: H3;
  routes: readonly RouteSpec[];
  /** Answer new requests with 503 while in-flight ones finish (graceful shutdown). */
  startDraining(): void;
  /** Tell in-flight work to finish now with what it has (the drain's cut-off, `server/drain.ts`). */
  cutInFlight(): void;
}

export interface CreateAppOptions {
  log?: Logger;
  /** Replace the route table (tests of the framework itself). */
  routes?: readonly RouteSpec[];
}

const NDJSON = "application/x-ndjson";

function wantsNdjson(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes(NDJSON);
}

/**
 * Add the request's headers to an answer the app made, in place: its headers are mutable
 * (made with `new Response`, as `onResponse` below relies on too), and copying it into a
 * second Response cost every streamed search a Headers, a Response and a body hand-over.
 */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [k, v] of Object.entries({ ...API_HEADERS, ...headers })) if (!response.headers.has(k)) response.headers.set(k, v);
  return response;
}

export function createApp(services: Services, options: CreateAppOptions = {}): ApiApp {
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const routes = options.routes ?? allRoutes;
  const cors = services.deps.config.corsOrigins;
  let draining = false;
  const cutoff = new AbortController();

  const h3 = new H3({
    // Every answer carries the request's id (docs/api.md, "Request ids"); `serve` logs it.
    onResponse: (response, event) => {
      response.headers.set(REQUEST_ID_HEADER, requestIdOf(event));
    },
    // Errors h3 raises itself (a malformed URL, say) get our body shape too.
    onError: (error) => jsonResponse(error.status >= 400 && error.status < 500 ? error.status : 500, {
      error: error.status >= 400 && error.status < 500 ? error.message || "bad request" : "internal error",
    }),
  });

  const config = services.deps.config;
  const turns = new RequestTurns();
  const throttle = new AuthThrottle(config.authFailuresPerMinute, services.deps.clock, config.trustedProxies);

  function authenticate(spec: RouteSpec, request: Request): Principal | undefined {
    if (spec.auth === "none") return undefined;
    const client = throttle.clientOf(request);
    throttle.assertAllowed(client);
    const header = request.headers.get("authorization");
    let principal: Principal;
    try {
      principal = services.auth.authenticate(header);
    } catch (err) {
      // A request without credentials guesses nothing; a refused token counts.
      if (header && isAppError(err) && err.code === "unauthorized") throttle.recordFailure(client);
      throw err;
    }
    if (spec.auth === "user" && principal.kind !== "pat") throw forbidden("this endpoint needs a personal access token, not a team API key");
    if (spec.auth === "team-key" && principal.kind !== "key") throw forbidden("this endpoint needs a team API key, not a personal access token");
    return principal;
  }

  function rateLimit(principal: Principal | undefined, headers: Record<string, string>): void {
    if (!principal || !services.rateLimiter.enabled) return;
    const decision = services.rateLimiter.take(principal.tokenId);
    headers["x-ratelimit-limit"] = String(decision.limit);
    headers["x-ratelimit-remaining"] = String(decision.remaining);
    headers["x-ratelimit-reset"] = String(decision.resetAt);
    if (!decision.allowed) {
      throw new AppError("rate_limited", `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s`, {
        headers: { "retry-after": String(decision.retryAfterSeconds) },
      });
    }
  }

  function mount(spec: RouteSpec): void {
    h3.on(spec.method, spec.path, async (event: H3Event) => {
      const request = event.req as Request;
      const headers: Record<string, string> = corsHeaders(cors, request.headers.get("origin"));
      let principal: Principal | undefined;
      try {
        if (draining) throw new AppError("shutting_down", "the server is shutting down");
        // Reads and writes take turns (server/request-turns.ts): neither waits behind a crowd of
        // the other. A request without a body takes its turn before authenticating (the token's
        // lookups are database work too: outside a turn, the ~50 reads a busy server takes in at
        // once would all authenticate before the next write); one with a body once it is read.
        const kind = spec.method === "GET" ? "read" : "write";
        if (!spec.body) await turns.next(kind);
        principal = authenticate(spec, request);
        rateLimit(principal, headers);
        const path = getRouterParams(event, { decode: true }) as Record<string, string>;
        const params = spec.params ? parseOrThrow(spec.params, path, "path") : path;
        const query = spec.query ? parseOrThrow(spec.query, Object.fromEntries(event.url.searchParams), "query") : undefined;
        const body = spec.body ? await readJsonBody(request, spec.body) : undefined;
        if (spec.body) await turns.next(kind);
        const parsed = { event, request, principal, body, query, params };
        const idempotencyKey = spec.idempotent ? request.headers.get(IDEMPOTENCY_HEADER) : null;
        if (idempotencyKey !== null && principal) {
          const start = services.idempotency.begin(principal.teamId, idempotencyKey, IdempotencyService.requestHash(spec.id, params, body));
          if (start.kind === "replay") return withHeaders(storedResponse(start.answer), { ...headers, "idempotent-replayed": "true" });
          return await remembered(start, () => run(spec, parsed, headers));
        }
        return await run(spec, parsed, headers);
      } catch (err) {
        return failure(spec, principal, err, headers);
      }
    });
  }

  /** An error as the operation's error body, with the request's headers. */
  function failure(spec: RouteSpec, principal: Principal | undefined, err: unknown, headers: Record<string, string>): Response {
    const extra = () => (principal && spec.errorBody ? spec.errorBody(services, principal) : {});
    return withHeaders(errorResponse(err, spec.errorStyle ?? "plain", log, extra), headers);
  }

  /** The handler, and its answer (an error included) as a Response. */
  async function run(
    spec: RouteSpec,
    parsed: Pick<AnyRouteContext, "event" | "request" | "principal" | "body" | "query" | "params">,
    headers: Record<string, string>,
  ): Promise<Response> {
    try {
      const ctx: AnyRouteContext = {
        ...parsed,
        services,
        signal: parsed.request.signal,
        cutoff: cutoff.signal,
        wantsNdjson: spec.stream !== undefined && wantsNdjson(parsed.request),
        log,
        turn: (kind) => turns.next(kind),
      };
      const result = await spec.handler(ctx);
      if (result instanceof Response) return withHeaders(result, headers);
      return jsonResponse(spec.successStatus ?? 200, result, headers);
    } catch (err) {
      // The client went away and its work stopped with it: nobody reads the answer, and the
      // request's log line says "(client went away)"; no stack for an abort. A 5xx, so an
      // idempotency key is released and a retry does the work.
      if (parsed.request.signal.aborted) return jsonResponse(503, { error: "the client went away" }, headers);
      return failure(spec, parsed.principal, err, headers);
    }
  }

  /**
   * Run a request that holds an idempotency reservation: its answer is stored for
   * repeats, unless the server failed (5xx), when the key is released so a retry does
   * the work.
   */
  async function remembered(start: Extract<IdempotentStart, { kind: "run" }>, work: () => Promise<Response>): Promise<Response> {
    let response: Response;
    try {
      response = await work();
    } catch (err) {
      start.release();
      throw err;
    }
    if (response.status >= 500) {
      start.release();
      return response;
    }
    const answer = { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
    start.complete(answer);
    return new Response(answer.body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  for (const spec of routes) mount(spec);

  const openapi = () => buildOpenApiDocument(routes);
  h3.get("/api/v1/openapi.json", () => jsonResponse(200, openapi(), corsHeaders(cors, null)));
  h3.get("/healthz", () => jsonResponse(draining ? 503 : 200, { status: draining ? "shutting_down" : "ok" }));

  const patterns = [
    ...routes.map((r) => ({ method: r.method, regexp: patternToRegExp(r.path) })),
    { method: "GET", regexp: patternToRegExp("/api/v1/openapi.json") },
    { method: "GET", regexp: patternToRegExp("/healthz") },
  ];
  // Anything no route took: 405 when the path exists with other methods, else 404.
  h3.all("/**", (event: H3Event) => {
    const request = event.req as Request;
    const allowed = [...new Set(patterns.filter((p) => p.regexp.test(event.url.pathname)).map((p) => p.method))];
    if (allowed.length === 0) return jsonResponse(404, { error: `no route for ${request.method} ${event.url.pathname}` });
    const allow = allowed.join(", ");
    if (request.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { allow, ...API_HEADERS, ...preflightHeaders(cors, request.headers.get("origin"), allow) } });
    }
    return jsonResponse(405, { error: `method ${request.method} is not allowed on ${event.url.pathname} (allowed: ${allow})` }, { allow });
  });

  return {
    h3,
    routes,
    fetch: async (request: Request) => h3.fetch(request),
    startDraining() {
      draining = true;
    },
    cutInFlight() {
      cutoff.abort(new DOMException("the server is shutting down", "TimeoutError"));
    },
  };
}
