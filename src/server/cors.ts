/**
 * CORS is off unless the operator lists origins (`OUTREACH_CORS_ORIGINS`): an API that
 * takes bearer tokens has no reason to answer browsers from other sites by default.
 */
export function corsHeaders(origins: readonly string[], requestOrigin: string | null): Record<string, string> {
  if (!requestOrigin || origins.length === 0) return {};
  if (!origins.includes("*") && !origins.includes(requestOrigin)) return {};
  return {
    "access-control-allow-origin": origins.includes("*") ? "*" : requestOrigin,
    "access-control-expose-headers": "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, WWW-Authenticate, Idempotent-Replayed",
    vary: "Origin",
  };
}

export function preflightHeaders(origins: readonly string[], requestOrigin: string | null, allow: string): Record<string, string> {
  const base = corsHeaders(origins, requestOrigin);
  if (!base["access-control-allow-origin"]) return {};
  return {
    ...base,
    "access-control-allow-methods": allow,
    "access-control-allow-headers": "Authorization, Content-Type, Accept",
    "access-control-max-age": "600",
  };
}
