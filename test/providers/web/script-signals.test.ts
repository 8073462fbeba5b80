import { describe, expect, it } from "vitest";
import { extractPage } from "../../../src/providers/web/extract/page-facts.js";

const facts = (html: string) => extractPage(new TextEncoder().encode(html), "text/html; charset=utf-8", "http://shop.de/");
const prose = "<p>Wir sind ein kleiner Betrieb in der Altstadt und beraten Sie gern persönlich, seit über zwanzig Jahren, mit Sorgfalt und Erfahrung.</p>".repeat(4);

describe("does a page look script-built (the rule in extract/script-signals.ts)", () => {
  it.each([
    ["cloaked", `${prose}<script>document.write('<a href="mailto:' + u + '@' + d + '">')</script>`],
    ["cloaked", `${prose}<span id="em"></span><script>document.getElementById("em").innerHTML = '<a href="mailto:' + u + '">';</script>`],
    ["cloaked", `${prose}<script>el.textContent = ["info", "shop.de"].join("@");</script>`],
    ["cloaked", `${prose}<span id="cloak4f1e2d3c4b5a69788796a5b4c3d2e1f0">Diese E-Mail-Adresse ist vor Spambots geschützt!</span>`],
    ["cloaked", `${prose}<span class="em" data-user="info" data-domain="shop.de"></span>`],
    ["challenge", `<script>document.cookie = "pass=1; path=/"; location.reload();</script>`],
    ["app-shell", `<div id="root"></div><script src="/main.js"></script>`],
    ["app-shell", `<div id="__nuxt"><div class="nuxt-loading">Loading…</div></div><script src="/_nuxt/4f1e.js"></script>`],
    ["app-shell", `<div id="q-app"><style>.spin{margin:auto}</style><div class="spin" role="status"><div>Wird geladen &hellip;</div></div></div>`],
    ["noscript", `<noscript>Please enable JavaScript to view this site.</noscript><div id="page"></div>`],
    ["script-heavy", `<p>Laden</p><script>${"var x = 1;".repeat(100)}</script>`],
  ])("%s: %s", (reason, html) => {
    expect(facts(`<html><body>${html}</body></html>`).scriptBuilt).toBe(reason);
  });

  it.each([
    ["a page of prose with a plain address", `${prose}<p>info@shop.de</p>`],
    ["a page of prose with ordinary scripts", `${prose}<script src="/jquery.js"></script><script>$(function () { menu(); });</script>`],
    ["Cloudflare's data-cfemail (the static reader decodes it)", `${prose}<a href="/cdn-cgi/l/email-protection" class="__cf_email__" data-cfemail="0a636468614a797962657a24">[email&#160;protected]</a>`],
    ["a long page that mounts an app beside its text", `${prose}${prose}<div id="app"></div>`],
    ["a server-rendered page wrapped in its mount point", `<div id="app"><div class="header">Bäckerei Huber</div>${prose}</div>`],
    ["a mount point whose content does not close within the window", `<div id="root"><div><div>${prose}`],
  ])("not script-built: %s", (_name, html) => {
    expect(facts(`<html><body>${html}</body></html>`).scriptBuilt).toBeUndefined();
  });
});
