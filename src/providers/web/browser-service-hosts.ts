/**
 * Hosts the browser calls on its own, for no page: component and extension updates
 * (`update.googleapis.com`, `clients2.google.com`, `redirector.gvt1.com`), account and sync
 * checks (`accounts.google.com`), Safe Browsing, optimization hints, autofill and network time.
 * Debian's Chromium ships Google API keys (/etc/chromium.d/apikeys, sourced by its launcher,
 * so no environment we pass can unset them), and some of these calls are made even with
 * `--disable-background-networking` and `--disable-component-update`. A crawl of a business's
 * site has no reason to reach them: the proxy refuses them without resolving the name.
 * A page's own Google resources (fonts.googleapis.com, maps, analytics) are other hosts and
 * keep the page's rules.
 */
const SERVICE_HOSTS = new Set([
  "accounts.google.com",
  "android.clients.google.com",
  "clients1.google.com",
  "clients2.google.com",
  "clients3.google.com",
  "clients4.google.com",
  "clientservices.googleapis.com",
  "content-autofill.googleapis.com",
  "optimizationguide-pa.googleapis.com",
  "redirector.gvt1.com",
  "safebrowsing.googleapis.com",
  "safebrowsing.google.com",
  "sb-ssl.google.com",
  "update.googleapis.com",
  "edgedl.me.gvt1.com",
]);

/** Whether `host` (a name, any case, a trailing dot allowed) is one of the browser's own services. */
export function isBrowserServiceHost(host: string): boolean {
  return SERVICE_HOSTS.has(host.toLowerCase().replace(/\.$/, ""));
}
