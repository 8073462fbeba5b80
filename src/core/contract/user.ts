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
});
