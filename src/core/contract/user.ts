import { IdParams, SuccessBody } from "../schemas/common.js";
import { CreatePersonalTokenBody, IssuedPersonalToken, PersonalTokenList } from "../schemas/personal-token.js";
import { User } from "../schemas/user.js";
import { defineOperations } from "./operation.js";

export const userOperations = defineOperations({
  "user.me": {
    method: "GET",
    path: "/api/v1/user/me",
    operationId: "getCurrentUser",
    summary: "The user who owns the token",
    tag: "user",
    endpoint: 17,
    auth: "user",
    response: User,
  },
  "userTokens.list": {
    method: "GET",
    path: "/api/v1/user/tokens",
    operationId: "listPersonalTokens",
    summary: "The caller's personal access tokens that are not revoked (never the raw tokens)",
    tag: "user",
    addition: true,
    auth: "user",
    response: PersonalTokenList,
  },
  "userTokens.create": {
    method: "POST",
    idempotent: true,
    path: "/api/v1/user/tokens",
    operationId: "createPersonalToken",
    summary: "Create a personal access token for the caller; the raw token is returned this once",
    tag: "user",
    addition: true,
    auth: "user",
    body: CreatePersonalTokenBody,
    response: IssuedPersonalToken,
    successStatus: 201,
  },
  "userTokens.revoke": {
    method: "DELETE",
    path: "/api/v1/user/tokens/:id",
    operationId: "revokePersonalToken",
    summary: "Revoke one of the caller's personal access tokens: it is refused from the next request on (the token in use may revoke itself)",
    tag: "user",
    addition: true,
    auth: "user",
    params: IdParams,
    response: SuccessBody,
    errors: [404],
  },
});
