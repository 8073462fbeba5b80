/**
 * Links that go through a redirector (Google Sites wraps every external link in
 * `https://www.google.com/url?q=<target>`, Facebook in `l.facebook.com/l.php?u=`, some
 * WordPress plugins in `…/out?url=`): the target is what the link means.
 */
const WRAPPERS: Array<[RegExp, string[]]> = [
  [/^(?:www\.)?google\.[a-z.]+$/i, ["q", "url"]],
  [/^l[m]?\.facebook\.com$/i, ["u"]],
  [/^l\.instagram\.com$/i, ["u"]],
  [/^(?:www\.)?href\.li$/i, []],
];

export function unwrapRedirect(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return href;
  }
  for (const [host, params] of WRAPPERS) {
    if (!host.test(url.hostname)) continue;
    if (params.length === 0) return url.search.length > 1 ? decodeURIComponent(url.search.slice(1)) : href;
    if (url.pathname !== "/url" && url.pathname !== "/l.php" && url.pathname !== "/") continue;
    for (const name of params) {
      const target = url.searchParams.get(name);
      if (target && /^https?:\/\//i.test(target)) return target;
    }
  }
  return href;
}
