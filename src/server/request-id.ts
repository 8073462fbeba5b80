import type { H3Event } from "h3";
import { newId } from "../core/ids.js";

export const REQUEST_ID_HEADER = "x-request-id";

/** What an incoming X-Request-Id may be to be echoed: a token of at most 64 safe characters (nothing a log line or a header could be bent with). */
const SANE = /^[A-Za-z0-9._:@/+=-]{1,64}$/;

/** The caller's X-Request-Id when it is sane, else a new `req_…`. */
export function requestIdFrom(incoming: string | null | undefined): string {
  const value = incoming?.trim();
  return value && SANE.test(value) ? value : newId("req");
}

/** The request's id, the same for the whole request (docs/api.md, "Request ids"). */
export function requestIdOf(event: H3Event): string {
  const context = event.context as { requestId?: string };
  context.requestId ??= requestIdFrom(event.req.headers.get(REQUEST_ID_HEADER));
  return context.requestId;
}
