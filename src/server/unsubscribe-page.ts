import { escapeHtml } from "../services/sending/message-body.js";
import { API_HEADERS } from "./errors.js";

/**
 * The unsubscribe pages: small, self-contained, accessible (a language, a title, one
 * heading, a real button in a form, readable without CSS), and locked down: no script,
 * nothing loaded from elsewhere, not framable, never cached, no referrer sent on.
 */
export function unsubscribePage(status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
  return new Response(html, {
    status,
    headers: {
      ...API_HEADERS,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
    },
  });
}
