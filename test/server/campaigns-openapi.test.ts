import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

describe("OpenAPI document: campaigns, team API keys, brand", () => {
  it("lists every route, with the additions marked as additions and the spec endpoints not", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const doc = (await (await server.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { operationId: string; "x-addition"?: boolean }>>;
    };
    const ops = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    const byId = new Map(ops.map((op) => [op.operationId, op]));
    for (const id of ["listCampaigns", "createCampaign", "triggerCampaign", "listCampaignExecutions", "listTeamApiKeys", "createTeamApiKey", "revokeTeamApiKey", "getBrandSettings"]) {
      expect(byId.get(id)?.["x-addition"], id).toBe(true);
    }
    for (const id of ["getCampaign", "changeCampaignLifecycle", "rotateTeamApiKey", "updateBrandSettings"]) {
      expect(byId.get(id), id).toBeDefined();
      expect(byId.get(id)?.["x-addition"], id).not.toBe(true);
    }
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/campaigns/{id}/lifecycle", "/api/v1/settings/team-api-keys/{id}"]));
  });
});
