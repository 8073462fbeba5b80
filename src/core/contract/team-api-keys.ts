import { IdParams } from "../schemas/common.js";
import { CreateKeyBody, IssuedKeyResponse, KeyList, KeyResponse } from "../schemas/team-api-key.js";
import { defineOperations } from "./operation.js";

const BASE = "/api/v1/settings/team-api-keys";

export const teamApiKeyOperations = defineOperations({
  "teamApiKeys.list": {
    method: "GET",
    path: BASE,
    operationId: "listTeamApiKeys",
    summary: "List the workspace's team API keys (never the raw keys)",
    tag: "team-api-keys",
    addition: true,
    auth: "user",
    response: KeyList,
  },
  "teamApiKeys.create": {
    method: "POST",
    idempotent: true,
    path: BASE,
    operationId: "createTeamApiKey",
    summary: "Create a team API key; the raw key is returned this once (owner or admin)",
    tag: "team-api-keys",
    addition: true,
    auth: "user",
    body: CreateKeyBody,
    response: IssuedKeyResponse,
    successStatus: 201,
    errors: [403, 409],
  },
  "teamApiKeys.rotate": {
    method: "POST",
    path: `${BASE}/:id`,
    operationId: "rotateTeamApiKey",
    summary: "Rotate a team API key: the previous key fails at once, the new one is returned once (owner or admin)",
    tag: "team-api-keys",
    endpoint: 15,
    auth: "user",
    params: IdParams,
    response: IssuedKeyResponse,
    errors: [403, 404, 409],
  },
  "teamApiKeys.revoke": {
    method: "DELETE",
    path: `${BASE}/:id`,
    operationId: "revokeTeamApiKey",
    summary: "Revoke a team API key (owner or admin); revoking again answers the key unchanged",
    tag: "team-api-keys",
    addition: true,
    auth: "user",
    params: IdParams,
    response: KeyResponse,
    errors: [403, 404],
  },
});
