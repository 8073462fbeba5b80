import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { allRoutes } from "../../src/server/routes/index.js";
import { buildOpenApiDocument } from "../../src/server/openapi.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, "../..");

/**
 * What a third party does with the document: generate types with openapi-typescript and
 * call the API through openapi-fetch. The client below must compile with no cast: the
 * JSON answer of the search types `data.leads`, list queries take numbers, bodies whose
 * parts are validated on the server (tags, import items, emailLanguage) are typed.
 */
const CLIENT = `
import createClient from "openapi-fetch";
import type { paths, components } from "./schema";

// JSON answers only (the search can also stream NDJSON: another media type of the same 200).
const api = createClient<paths, "application/json">({ baseUrl: "http://127.0.0.1:8787" });

export async function use(): Promise<string[]> {
  const search = await api.POST("/api/v1/map-leads/search", { body: { location: "Vaduz", keywords: "dentist", radiusKm: 5 } });
  const names: string[] = search.data ? search.data.leads.map((lead) => lead.name) : [];
  const next: string | null | undefined = search.data?.nextPageToken;
  const line: components["schemas"]["searchLeadsStreamLine"] | undefined = undefined;
  void line; void next;

  const page = await api.GET("/api/v1/contacts", { params: { query: { page: 2, limit: 50, tags: "lead,berlin" } } });
  const total: number | undefined = page.data?.total;
  void total;

  await api.POST("/api/v1/contacts/add", {
    body: { email: "ada@example.com", name: "Ada", tags: ["lead"] },
    headers: { "Idempotency-Key": "5b3e6f0a-0d55-4a7e-9d5e-2f1c3b4a5d6e" },
  });
  const imported = await api.POST("/api/v1/contacts/import", { body: { contacts: [{ email: "b@example.com", name: "B", tags: ["x"] }], tags: ["import"] } });
  const created: number | undefined = imported.data?.created;
  void created;

  await api.PATCH("/api/v1/settings/brand", { body: { emailLanguage: "de-CH", brandDesignSystem: { colors: { primary: "#123456" } } } });
  const campaigns = await api.GET("/api/v1/campaigns", { params: { query: { page: 1, limit: 20 } } });
  void campaigns;
  const me = await api.GET("/api/v1/user/me");
  const email: string | undefined = me.data?.email;
  void email;
  return names;
}
`;

describe("the OpenAPI document as a third-party client uses it", () => {
  it("openapi-typescript generates types and an openapi-fetch client compiles against them with no type errors", async () => {
    const doc = buildOpenApiDocument(allRoutes);
    const dir = tempDir();
    writeFileSync(join(dir, "schema.d.ts"), astToString(await openapiTS(structuredClone(doc) as never)));
    writeFileSync(join(dir, "client.ts"), CLIENT);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          skipLibCheck: true,
          types: [],
          paths: { "openapi-fetch": [join(repo, "node_modules/openapi-fetch")] },
        },
        files: ["client.ts"],
      }),
    );
    const tsc = join(repo, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")]).then(
      () => ({ code: 0, output: "" }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, output: err.stdout + err.stderr }),
    );
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);
});

type Doc = {
  paths: Record<string, Record<string, { tags?: string[]; description?: string; parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }>; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: { $ref?: string } }> }> }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

/** Paths to every `{}` schema in the document (a schema that says nothing). */
function emptySchemas(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => emptySchemas(v, `${path}[${i}]`));
  if (!value || typeof value !== "object") return [];
  const entries = Object.entries(value as Record<string, unknown>);
  const here = /(schema|items|additionalProperties|anyOf\[\d+\]|oneOf\[\d+\]|properties\/[^/]+)$/.test(path) && entries.length === 0 ? [path] : [];
  return [...here, ...entries.flatMap(([k, v]) => emptySchemas(v, `${path}/${k}`))];
}

describe("what the OpenAPI document says", () => {
  const doc = buildOpenApiDocument(allRoutes) as unknown as Doc;
  const operations = Object.values(doc.paths).flatMap((p) => Object.values(p));

  it("has no empty schemas (tags, import items, emailLanguage and the design system are typed)", () => {
    expect(emptySchemas(doc)).toEqual([]);
    const importBody = doc.components.schemas.importContactsBody as { properties: { contacts: { items: unknown } } };
    expect(importBody.properties.contacts.items).toEqual({ $ref: "#/components/schemas/ContactInput" });
  });

  it("types query integers as integers with their bounds", () => {
    const list = doc.paths["/api/v1/contacts"]!.get!.parameters!;
    expect(list.find((p) => p.name === "page")!.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 1_000_000 });
    expect(list.find((p) => p.name === "limit")!.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
  });

  it("describes the NDJSON stream as its own media type with a line schema", () => {
    const content = doc.paths["/api/v1/map-leads/search"]!.post!.responses["200"]!.content!;
    expect(content["application/x-ndjson"]!.schema.$ref).toBe("#/components/schemas/searchLeadsStreamLine");
    const line = JSON.stringify(doc.components.schemas.searchLeadsStreamLine);
    for (const type of ["progress", "complete", "error"]) expect(line).toContain(`"const":"${type}"`);
  });

  it("documents the rate-limit headers, Retry-After on 429 and WWW-Authenticate on 401; every operation is tagged and described within the repository", () => {
    const me = doc.paths["/api/v1/user/me"]!.get!;
    expect(Object.keys(me.responses["200"]!.headers!)).toEqual(expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id"]));
    expect(Object.keys(me.responses["429"]!.headers!)).toContain("Retry-After");
    expect(Object.keys(me.responses["401"]!.headers!)).toContain("WWW-Authenticate");
    for (const op of operations) {
      expect(op.tags?.length).toBeGreaterThan(0);
      expect(op.description).toBeTruthy();
      expect(op.description).not.toMatch(/\.\.\/|shared\/|service-api\.md|decisions\.md/);
    }
  });

  it("the server sends what it documents: WWW-Authenticate on a 401, X-RateLimit-* on an answer", async () => {
    const instance = createTestInstance({ config: { rateLimitPerMinute: 120 } });
    const server = await startTestServer(instance.services);
    const refused = await server.request("/api/v1/user/me");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="outreach"');
    const ok = await server.request("/api/v1/user/me", { token: instance.token });
    expect(ok.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(ok.headers.get("x-request-id")).toBeTruthy();
  });
});
