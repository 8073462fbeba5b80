import { z } from "zod";
import { pathParameterNames, type Operation } from "../core/contract/index.js";
import { ErrorBody } from "../core/schemas/common.js";
import { Quota } from "../core/schemas/quota.js";

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request: the message names each bad field and why (also: body not UTF-8 or not JSON, a key given twice, nesting deeper than 32 levels)",
  401: "Missing, malformed, unknown, expired or revoked token, or no active workspace",
  403: "The role or plan forbids it, or a quota or limit is reached",
  404: "Unknown id, or an id of another workspace",
  405: "Method not allowed on this path",
  409: "Conflict with the current state",
  413: "Body larger than 1 MiB",
  415: "Body is not JSON",
  429: "Rate limit exceeded, or too many failed authentications from this address (see Retry-After)",
  500: "Provider failure or unexpected error",
  503: "The server is shutting down",
};

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/** Strip what JSON Schema emits per document but an embedded OpenAPI 3.1 schema does not want. */
function clean(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** The JSON Schema of each property of an object schema, and which are required. */
function propertiesOf(schema: z.ZodType): { properties: Record<string, unknown>; required: string[] } {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, unknown>; required?: string[] };
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}

/**
 * Query parameters travel as text, but one that stands for a number is described as the
 * number (`page`: integer 1..1000000), as a client should send it: the schema of what
 * the text becomes, where that is a number.
 */
function queryParameters(schema: z.ZodType): { properties: Record<string, unknown>; required: string[] } {
  const input = propertiesOf(schema);
  const output = (z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const properties: Record<string, unknown> = {};
  for (const [name, described] of Object.entries(input.properties)) {
    const type = output[name]?.type;
    properties[name] = type === "integer" || type === "number" ? output[name] : described;
  }
  return { properties, required: input.required };
}

/**
 * `.meta({ documentedAs: "ContactInput" })` on a schema that accepts anything because its
 * value is checked elsewhere (each import item on its own) documents it as that component.
 */
function documentedAs(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const name = ctx.jsonSchema.documentedAs;
  if (typeof name !== "string") return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  ctx.jsonSchema.$ref = `#/components/schemas/${name}`;
}

/** Any JSON value, recursively: what free-form objects hold (`FreeFormValue` in core/schemas/common.ts). */
const JSON_VALUE_SCHEMA = {
  description: "Any JSON value",
  anyOf: [
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "null" },
    { type: "array", items: { $ref: "#/components/schemas/JsonValue" } },
    { type: "object", additionalProperties: { $ref: "#/components/schemas/JsonValue" } },
  ],
};

/** Headers every authenticated answer carries, and those of particular statuses (docs/api.md, "Conventions"). */
const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute for this token", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Reset": { description: "When the bucket is full again (Unix seconds)", schema: { type: "integer", minimum: 0 } },
};
const REQUEST_ID_HEADER = { "X-Request-Id": { description: "The request's id: the caller's X-Request-Id when sane, else a new one", schema: { type: "string", maxLength: 64 } } };
const RETRY_AFTER_HEADER = { "Retry-After": { description: "Whole seconds to wait before retrying", schema: { type: "integer", minimum: 0 } } };
const WWW_AUTHENTICATE_HEADER = { "WWW-Authenticate": { description: "The scheme to authenticate with: Bearer", schema: { type: "string" } } };

/**
 * OpenAPI 3.1 generated from the API contract (src/core/contract/): the same zod schemas
 * that validate requests describe them here, so the document cannot drift from the code.
 */
export function buildOpenApiDocument(routes: readonly Operation[]): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const refs = new Map<z.ZodType, string>();
  const ref = (schema: z.ZodType, fallbackId: string) => {
    let id = refs.get(schema);
    if (!id) {
      id = (z.globalRegistry.get(schema)?.id as string | undefined) ?? fallbackId;
      refs.set(schema, id);
      registry.add(schema, { id });
    }
    return { $ref: `#/components/schemas/${id}` };
  };
  // Every schema with a global id (`.meta({ id })`) becomes a component, so nested
  // references resolve to components instead of per-document $defs.
  const globalIds = (z.globalRegistry as unknown as { _idmap: Map<string, z.ZodType> })._idmap;
  for (const [id, schema] of globalIds) {
    refs.set(schema, id);
    registry.add(schema, { id });
  }
  // Register first, convert once: shared schemas become components referenced by name.
  const pending: Array<() => void> = [];
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = ref(ErrorBody, "Error");

  for (const route of routes) {
    const op: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
    };
    const notes: string[] = [];
    if (route.endpoint) notes.push(`Endpoint ${route.endpoint} of the service API (docs/api.md).`);
    if (route.addition) notes.push("Addition: not one of the service API's endpoints (see docs/api.md).");
    if (route.description) notes.push(route.description);
    if (notes.length) op.description = notes.join(" ");
    if (route.addition) op["x-addition"] = true;
    if (route.auth === "none") op.security = [];
    else if (route.auth === "team-key") op.security = [{ teamApiKey: [] }];

    const parameters: unknown[] = [];
    const pathSchemas = route.params ? propertiesOf(route.params).properties : {};
    for (const name of pathParameterNames(route.path)) {
      parameters.push({ name, in: "path", required: true, schema: pathSchemas[name] ?? { type: "string" } });
    }
    if (route.query) {
      const { properties, required } = queryParameters(route.query);
      for (const [name, schema] of Object.entries(properties)) parameters.push({ name, in: "query", required: required.includes(name), schema });
    }
    if (route.idempotent) {
      op["x-idempotent"] = true;
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "A repeat with the same key and request within 24 hours replays the first answer; the same key with another request is a 409 (docs/api.md, \"Idempotent requests\").",
        schema: { type: "string", minLength: 1, maxLength: 255 },
      });
    }
    if (parameters.length) op.parameters = parameters;

    if (route.body) {
      const bodySchema = route.body;
      pending.push(() => {
        op.requestBody = { required: true, content: { "application/json": { schema: ref(bodySchema, `${route.operationId}Body`) } } };
      });
    }
    const responseSchema = route.response;
    pending.push(() => {
      const content: Record<string, unknown> = route.produces
        ? { [route.produces]: { schema: { type: "string" } } }
        : { "application/json": { schema: ref(responseSchema, `${route.operationId}Response`) } };
      if (route.stream) {
        // Each line is one of these; a client reads the body line by line (Accept: application/x-ndjson).
        const line = z
          .discriminatedUnion("type", [
            z.object({ type: z.literal("progress"), data: route.stream.progress }),
            z.object({ type: z.literal("complete"), data: responseSchema }),
            z.object({ type: z.literal("error"), error: z.string(), code: z.string(), quota: Quota.optional() }),
          ])
          .meta({ description: "One line of the NDJSON answer: progress lines, then exactly one complete or error line." });
        content["application/x-ndjson"] = { schema: ref(line, `${route.operationId}StreamLine`) };
      }
      const common = route.auth === "none" ? REQUEST_ID_HEADER : { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS };
      const responses: Record<string, unknown> = {
        [String(route.successStatus ?? 200)]: { description: "Success", headers: common, content },
      };
      const statuses = new Set<number>(route.errors ?? []);
      if (route.auth !== "none") [401, 429].forEach((s) => statuses.add(s));
      if (route.body) [400, 413, 415].forEach((s) => statuses.add(s));
      if (route.query || route.path.includes(":")) statuses.add(400);
      if (route.path.includes(":")) statuses.add(404);
      if (route.idempotent) statuses.add(409);
      for (const status of [...statuses].sort()) {
        const headers = status === 429 || status === 503 ? { ...common, ...RETRY_AFTER_HEADER } : status === 401 ? { ...common, ...WWW_AUTHENTICATE_HEADER } : common;
        responses[String(status)] = { description: STATUS_TEXT[status] ?? "Error", headers, content: { "application/json": { schema: errorRef } } };
      }
      op.responses = responses;
    });
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = op;
  }
  for (const run of pending) run();

  const components = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: "output",
    unrepresentable: "any",
    override: documentedAs,
  }) as { schemas: Record<string, Record<string, unknown>> };
  const schemas: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(components.schemas)) schemas[id] = clean(schema);
  schemas.JsonValue = JSON_VALUE_SCHEMA;

  paths["/healthz"] = {
    get: {
      operationId: "health",
      summary: "Liveness check",
      description: "Addition: 200 while serving, 503 once shutting down (no authentication).",
      tags: ["system"],
      security: [],
      "x-addition": true,
      responses: { "200": { description: "Serving" }, "503": { description: "Shutting down" } },
    },
  };
  paths["/api/v1/openapi.json"] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      description: "Addition: the OpenAPI 3.1 description of the API, generated from the contract the server validates with (no authentication).",
      tags: ["system"],
      security: [],
      "x-addition": true,
      responses: { "200": { description: "OpenAPI 3.1 document" } },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "outreach API",
      version: "1.0.0",
      description:
        "Local-business lead search, enrichment, contacts, campaigns, sending domains, brand settings, team API keys and workspaces. " +
        "Operations marked x-addition are this project's additions to the service API's endpoints.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Personal access token (otr_pat_…)" },
        teamApiKey: { type: "http", scheme: "bearer", description: "Team API key (otr_key_…) with the scopes the operation needs" },
      },
    },
  };
}
