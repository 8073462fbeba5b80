import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * Who may call an operation: `user` a personal access token, `team-key` a team API key,
 * `none` anyone.
 */
export type AuthKind = "user" | "team-key" | "none";

/** Which error body an operation answers with: `{error}` only, or `{error, code, …}` (the lead search and the enrichment retry). */
export type ErrorStyle = "plain" | "coded";

/** Where an operation comes from: its number among the endpoints of the service API, or an addition of this project (docs/api.md). */
type Origin = { endpoint: number; addition?: never } | { addition: true; endpoint?: never };

/**
 * Everything the server, the client and the OpenAPI document need to know about one
 * endpoint, declared once. Schemas are zod: the server validates requests with them, the
 * client derives its input and result types from them (`z.input` of what it sends,
 * `z.output` of what it receives) and checks answers with them, and the OpenAPI document
 * is generated from them.
 */
export type OperationSpec = Origin & {
  method: HttpMethod;
  /** Path pattern, `:name` for a parameter. */
  path: string;
  /** The OpenAPI operationId (stable: generated clients depend on it). */
  operationId: string;
  /** Path parameters, by name. */
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The JSON answer; for a streaming operation also the `data` of its `complete` line. */
  response: z.ZodType;
  successStatus?: number;
  /** Also answers `application/x-ndjson`: `progress` lines of this shape, then one `complete` or `error` line. */
  stream?: { progress: z.ZodType };
  /**
   * A page for people, not JSON: the handler answers a Response of this type (the
   * unsubscribe page). `response` then describes its body (a string).
   */
  produces?: "text/html";
  auth: AuthKind;
  errorStyle?: ErrorStyle;
  summary: string;
  description?: string;
  tag: string;
  /** Error statuses to document besides those every operation of its kind has. */
  errors?: readonly number[];
  /**
   * Takes an `Idempotency-Key` header (docs/api.md, "Idempotent requests"): the POSTs that
   * create or send. A repeat with the same key and request within 24 hours replays the
   * first answer; the same key with another request is a 409.
   */
  idempotent?: true;
};

/** An operation of the contract: its spec and its id (`"contacts.add"`). */
export type Operation<Id extends string = string, S extends OperationSpec = OperationSpec> = S & { readonly id: Id };

/**
 * One resource's operations, keyed by id. The id is written once, as the key; each entry
 * gets it as `id` too, so code holding an operation knows its name.
 */
export function defineOperations<const T extends Record<string, OperationSpec>>(specs: T): { [K in keyof T & string]: Operation<K, T[K]> } {
  return Object.fromEntries(Object.entries(specs).map(([id, spec]) => [id, { ...spec, id }])) as never;
}

/** The parsed type of an optional schema slot (undefined when the operation has none). */
export type SchemaOutput<S> = S extends z.ZodType ? z.output<S> : undefined;

export type BodyOf<O> = O extends { body: infer S extends z.ZodType } ? S : undefined;
export type QueryOf<O> = O extends { query: infer S extends z.ZodType } ? S : undefined;
export type ParamsOf<O> = O extends { params: infer S extends z.ZodType } ? S : undefined;
export type ResponseOf<O> = O extends { response: infer S extends z.ZodType } ? S : never;
export type ProgressOf<O> = O extends { stream: { progress: infer S extends z.ZodType } } ? S : never;

/** `/api/v1/contacts/:id` with `{id: "ct 1"}` → `/api/v1/contacts/ct%201`. */
export function fillPath(path: string, params: Record<string, unknown> = {}): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === "") throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(String(value));
  });
}

/** The names of a path's parameters (`:id` → `id`). */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}
