import { User } from "../../core/schemas/user.js";
import { defineRoute } from "../route.js";

export const userRoutes = [
  defineRoute({
    method: "GET",
    path: "/api/v1/user/me",
    operationId: "getCurrentUser",
    summary: "The user who owns the token",
    tag: "user",
    endpoint: 17,
    auth: "user",
    response: User,
    handler: ({ services, principal }) => services.teams.me(principal),
  }),
];
