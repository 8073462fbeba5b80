import { z } from "zod";
import { defineOperations } from "./operation.js";

const TokenParams = z.strictObject({ token: z.string().min(1).max(256) });
const Page = z.string().meta({ description: "An HTML page" });

/** What the page and its button share: the same URL's token, no authentication, an HTML page back. */
const tokenPage = {
  tag: "unsubscribe",
  addition: true,
  auth: "none",
  params: TokenParams,
  response: Page,
  produces: "text/html",
} as const;

/**
 * One-click unsubscribe (RFC 8058): the URL of every message's List-Unsubscribe header.
 * No authentication: the token is the capability (signed, per contact and campaign).
 */
export const unsubscribeOperations = defineOperations({
  "unsubscribe.page": {
    method: "GET",
    path: "/u/:token",
    operationId: "unsubscribePage",
    summary: "The unsubscribe page: one button that posts to the same URL",
    description: "Changes nothing by itself (mail scanners follow links). An unknown token gets a page saying so, with status 404.",
    ...tokenPage,
  },
  "unsubscribe.oneClick": {
    method: "POST",
    path: "/u/:token",
    operationId: "unsubscribeOneClick",
    summary: "Unsubscribe: the contact becomes unsubscribed and its pending executions skipped",
    description:
      "The body mail clients send (`List-Unsubscribe=One-Click`) or the page's form; it is not needed. Repeating it changes nothing. " +
      "An unknown token → 404 page.",
    ...tokenPage,
  },
});
