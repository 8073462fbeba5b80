import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { allRoutes } from "../../src/server/routes/index.js";
import { buildOpenApiDocument } from "../../src/server/openapi.js";

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document according to a real validator", async () => {
    const doc = buildOpenApiDocument(allRoutes);
    const validated = await SwaggerParser.validate(structuredClone(doc) as never);
    expect((validated as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("describes every route with its method, from the same schemas that validate requests", () => {
    const doc = buildOpenApiDocument(allRoutes) as { paths: Record<string, Record<string, { operationId: string }>> };
    for (const route of allRoutes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
      expect(doc.paths[path]?.[route.method.toLowerCase()]?.operationId).toBe(route.operationId);
    }
    const me = doc.paths["/api/v1/user/me"]!.get as unknown as { responses: Record<string, unknown> };
    expect(Object.keys(me.responses)).toEqual(expect.arrayContaining(["200", "401", "429"]));
  });

  it("marks additions and keeps them apart from the specified endpoints", () => {
    const doc = buildOpenApiDocument(allRoutes) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(doc.paths["/api/v1/teams/switch"]!.post!["x-addition"]).toBe(true);
    expect(doc.paths["/api/v1/teams"]!.get!["x-addition"]).toBeUndefined();
    expect(doc.paths["/healthz"]!.get!["x-addition"]).toBe(true);
  });
});
