/**
 * Does this page look built by its scripts, so that a browser would show what the HTML does
 * not (docs/api.md, "Enrichment in a browser")? Measured on the page's HTML in the
 * extraction worker; every pattern has bounded quantifiers and runs on at most 2 MiB.
 *
 * The rule, in order (the first that holds is the reason):
 * - `cloaked`: an address-cloaking script or marker (Joomla's email cloak, `document.write`
 *   or `innerHTML`/`textContent` assignments beside "mailto"/"@", pieces joined with "@",
 *   addresses assembled from `data-` attributes);
 * - `challenge`: a script-only bot check (sets a cookie, then reloads or redirects);
 * - `app-shell`: a `<div id="root|app|__next|__nuxt|q-app">` mount point that is empty or
 *   holds only a placeholder (a loading spinner, "Loading…": at most 40 characters of text
 *   inside it, as Nuxt and Quasar builds ship it);
 * - `noscript`: a `<noscript>` that asks for JavaScript;
 * - `script-heavy`: under 400 characters of visible text and more inline script than text
 *   (or external scripts and almost no text).
 * Cloudflare's `data-cfemail` is not a reason: the static extractor decodes it.
 */
export function scriptBuiltReason(html: string, textLength: number, inlineScriptChars: number): string | undefined {
  const head = html.length > 2_097_152 ? html.slice(0, 2_097_152) : html;
  if (/emailcloak|cloak[0-9a-f]{16,}|addy[0-9a-f]{16,}/i.test(head) || cloakingScript(head)) return "cloaked";
  if (textLength < 400 && /document\.cookie\s{0,10}=/.test(head) && /location\.(?:reload|replace|href|assign)|window\.location\s{0,10}=/.test(head)) return "challenge";
  if (placeholderMountPoint(head)) return textLength < 1000 ? "app-shell" : undefined;
  if (/<noscript[^>]{0,100}>[^<]{0,400}(?:javascript|\bjs\b)/i.test(head)) return textLength < 1000 ? "noscript" : undefined;
  const externalScripts = (head.match(/<script[^>]{0,300}\ssrc=/gi) ?? []).length;
  if (textLength < 400 && (inlineScriptChars > textLength || externalScripts >= 3)) return "script-heavy";
  return undefined;
}

const MOUNT_POINT = /<div[^>]{0,200}\sid=["']?(?:root|app|__next|__nuxt|q-app)["']?[^>]{0,200}>/i;
/** How far after a mount point's opening tag its content is looked at. */
const MOUNT_WINDOW = 600;
/** Text a placeholder may hold ("Loading…", "Wird geladen …", "Chargement en cours…"). */
const PLACEHOLDER_TEXT = 40;

/**
 * The first mount point is empty or holds only a placeholder: its content (up to the `</div>`
 * that closes it, within MOUNT_WINDOW characters; styles and scripts left out) has at most
 * PLACEHOLDER_TEXT characters of text. A server-rendered page that wraps its content in
 * `<div id="app">` has more text than that before the wrapper closes, or does not close it
 * within the window.
 */
function placeholderMountPoint(html: string): boolean {
  const open = MOUNT_POINT.exec(html);
  if (!open) return false;
  const window = html.slice(open.index + open[0].length, open.index + open[0].length + MOUNT_WINDOW);
  const tags = /<(\/?)div\b[^>]{0,200}>/gi;
  let depth = 1;
  for (let tag = tags.exec(window); tag; tag = tags.exec(window)) {
    depth += tag[1] ? -1 : 1;
    if (depth > 0) continue;
    const content = window
      .slice(0, tag.index)
      .replace(/<(style|script)\b[^>]{0,200}>[\s\S]{0,600}?<\/\1>/gi, "")
      .replace(/<[^>]{0,300}>/g, "")
      .replace(/&[a-z#0-9]{1,10};/gi, " ")
      .replace(/\s+/g, " ")
      .trim();
    return content.length <= PLACEHOLDER_TEXT;
  }
  return false;
}

/** Where a cloaking script could start; each place is then tested by one pattern anchored there. */
const CLOAK_ANCHORS = /document\.write|\.(?:innerHTML|innerText|textContent)|\.join\(|data-(?:user|name|local|email-user|mail-user)=/gi;
const CLOAK_AT: Array<[RegExp, RegExp]> = [
  [/^document/i, /document\.write\s{0,20}\([^)]{0,400}(?:mail|@|&#64;|\\x40)/iy],
  [/^\.(?:inner|text)/i, /\.(?:innerHTML|innerText|textContent)\s{0,10}=[^;]{0,400}(?:mailto|["']@["'])/iy],
  [/^\.join/i, /\.join\(\s{0,5}["']@["']\s{0,5}\)/y],
  [/^data-/i, /data-(?:user|name|local|email-user|mail-user)=["'][^"']{1,64}["'][^>]{0,200}data-(?:domain|host|email-domain|mail-domain)=/iy],
];
/** At most this many places are tested: linear in the page whatever it repeats (2 MiB of "@" or of ".innerHTML="). */
const MAX_CLOAK_ANCHORS = 500;

/** `document.write` or an `innerHTML`/`textContent` assignment beside "mailto"/"@", pieces joined with "@", `data-user`/`data-domain` pairs. */
function cloakingScript(html: string): boolean {
  CLOAK_ANCHORS.lastIndex = 0;
  for (let seen = 0, match = CLOAK_ANCHORS.exec(html); match && seen < MAX_CLOAK_ANCHORS; seen++, match = CLOAK_ANCHORS.exec(html)) {
    for (const [kind, pattern] of CLOAK_AT) {
      if (!kind.test(match[0])) continue;
      pattern.lastIndex = match.index;
      if (pattern.test(html)) return true;
    }
  }
  return false;
}
