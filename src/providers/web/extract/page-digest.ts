import { Parser } from "htmlparser2";

/** Where on the page something sits: navigation and footers repeat on every page, credits live in footers. */
export type Zone = "main" | "nav" | "header" | "footer" | "aside";

/**
 * A run of text as a reader sees it between two block breaks (a paragraph, a table cell, a
 * line after `<br>`). Inline elements are joined without a separator, as browsers render
 * them, so an address split across `<span>`s, an HTML comment, `<wbr>` or `&shy;` is whole
 * again; `boundaries` remember where one element ended and the next began, so that an
 * address glued onto a neighbouring word ("Mail" + "info@…") can be cut there.
 */
export interface TextBlock {
  text: string;
  boundaries: number[];
  zone: Zone;
  /** The element that holds the text (p, td, li, font, div…). */
  tag: string;
  /** h1–h6, dt, th, or a short line ending with a colon: it heads what follows. */
  heading: boolean;
  /** Characters of the text that are link labels (navigation lists are all links). */
  linkChars: number;
}

export interface DigestLink {
  /** The raw href (resolved by the reader against `baseHref`). */
  href: string;
  /** Link text, `aria-label`, `title` and the `alt` of images inside, joined. */
  label: string;
  zone: Zone;
  /** Index of the block the link's text belongs to (the context before it is in earlier blocks). */
  block: number;
  /** Offset of the link's text in that block. */
  offset: number;
}

/** Everything extraction needs from one HTML page, collected in one linear pass. */
export interface PageDigest {
  baseHref: string | undefined;
  title: string;
  /** `name`/`property` of meta tags → content (description, og:description, og:site_name, generator…). */
  meta: Record<string, string>;
  /** `<meta http-equiv=refresh>` or a tiny script's `location = …` target (raw). */
  refresh: string | undefined;
  /** `<frame src>` and `<iframe src>` (raw). */
  frames: string[];
  /** Social embeds: the Facebook page plugin's `data-href`. */
  embeds: string[];
  blocks: TextBlock[];
  links: DigestLink[];
  /** Cloudflare-protected addresses (`data-cfemail`, `/cdn-cgi/l/email-protection#…`) with their block. */
  cfemails: Array<{ hex: string; block: number }>;
  /** `itemprop="email"` values with their block. */
  microdata: Array<{ value: string; block: number }>;
  /** JSON-LD script bodies. */
  jsonLd: string[];
  /** Other inline script bodies (page data of site builders), capped. */
  scripts: string[];
}

const BLOCK_TAGS = new Set([
  "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd", "details", "dialog", "div", "dl", "dt",
  "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li", "main",
  "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "option",
  "frameset", "noframes", "legend", "button",
]);
const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "dt", "th"]);
/** Content a reader never sees. (`noscript` and `noframes` are shown by crawlers and old browsers alike: read.) */
const HIDDEN_TAGS = new Set(["style", "head", "svg", "iframe", "object", "select", "textarea", "canvas", "audio", "video", "template", "math", "noembed"]);
const ZONE_TAGS: Record<string, Zone> = { nav: "nav", header: "header", footer: "footer", aside: "aside" };
const ZONE_CLASS: Array<[RegExp, Zone]> = [
  [/footer|colophon|site-info|copyright|bottom-bar/i, "footer"],
  [/(?:^|[\s_-])(?:nav|navbar|navigation|menu|main-menu)(?:$|[\s_-])/i, "nav"],
  [/(?:^|[\s_-])(?:header|masthead|topbar|top-bar)(?:$|[\s_-])/i, "header"],
  [/sidebar|widget-area/i, "aside"],
];
/** Characters that are typography, not text: soft hyphen, zero-width space/joiners, word joiner, BOM. */
const INVISIBLE_CHARS = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;

const LIMITS = { blocks: 30_000, links: 4_000, text: 4_000_000, scripts: 2_000_000, script: 1_000_000, jsonLd: 500_000 };

interface OpenElement {
  name: string;
  zone: Zone;
  hidden: boolean;
  /** Block index and offset where the element's text began (for right-to-left overrides and itemprop text). */
  block: number;
  offset: number;
  reverse: boolean;
  itempropEmail: boolean;
}

/** A page whose reading ran past its CPU-time budget (`deadline`, a `performance.now()` value). */
export class PageTooSlowError extends Error {
  override name = "PageTooSlowError";
}

const CHUNK = 128 * 1024;
/**
 * Elements open at once beyond which the rest of a page is not read: htmlparser2 keeps
 * its open elements in an array it `unshift`s and searches, so a page of 200,000
 * unclosed `<div>`s costs it quadratic time. Real pages stay far below.
 */
const MAX_DEPTH = 1000;

class TooDeep extends Error {}

/**
 * Read an HTML page once, linearly, into a PageDigest. The parser is fed in chunks and
 * gives up with PageTooSlowError once `deadline` has passed.
 */
export function digestHtml(html: string, deadline = Number.POSITIVE_INFINITY): PageDigest {
  const digest: PageDigest = { baseHref: undefined, title: "", meta: {}, refresh: undefined, frames: [], embeds: [], blocks: [], links: [], cfemails: [], microdata: [], jsonLd: [], scripts: [] };
  const stack: OpenElement[] = [];
  let textBudget = LIMITS.text;
  let scriptBudget = LIMITS.scripts;

  // The block being built.
  let parts: string[] = [];
  let length = 0;
  let boundaries: number[] = [];
  let linkChars = 0;
  let pendingBoundary = false;
  let blockZone: Zone = "main";
  let blockTag = "body";

  // Raw-text collectors.
  let inTitle = false;
  let titleDone = false;
  let script: { kind: "jsonld" | "data" | "skip"; parts: string[]; size: number } | undefined;
  let link: { href: string; parts: string[]; extra: string[]; zone: Zone; block: number; offset: number } | undefined;

  const top = (): OpenElement | undefined => (stack.length ? stack[stack.length - 1] : undefined);
  const zoneNow = (): Zone => top()?.zone ?? "main";
  const hiddenNow = (): boolean => top()?.hidden ?? false;

  const flush = () => {
    if (length > 0 && digest.blocks.length < LIMITS.blocks) {
      const text = parts.join("");
      const trimmed = text.trim();
      if (trimmed) {
        const heading = HEADING_TAGS.has(blockTag) || (trimmed.length <= 60 && trimmed.endsWith(":"));
        digest.blocks.push({ text, boundaries, zone: blockZone, tag: blockTag, heading, linkChars });
      }
    }
    parts = [];
    length = 0;
    boundaries = [];
    linkChars = 0;
    pendingBoundary = false;
  };

  const appendText = (raw: string) => {
    if (textBudget <= 0) return;
    let text = raw.replace(INVISIBLE_CHARS, "").replace(/\s+/g, " ");
    if (!text) return;
    if (length === 0) {
      text = text.trimStart();
      if (!text) return;
      blockZone = zoneNow();
    } else if (text.startsWith(" ") && parts[parts.length - 1]!.endsWith(" ")) {
      text = text.slice(1);
      if (!text) return;
    }
    if (text.length > textBudget) text = text.slice(0, textBudget);
    textBudget -= text.length;
    if (pendingBoundary && length > 0) boundaries.push(length);
    pendingBoundary = false;
    parts.push(text);
    length += text.length;
    if (link) {
      link.parts.push(text);
      linkChars += text.length;
    }
  };

  // Text arrives in many small events (a page of "<<<<" is one event per character): it
  // is gathered here and appended once, before anything else happens.
  let pendingText = "";
  const drain = () => {
    if (pendingText) {
      const text = pendingText;
      pendingText = "";
      appendText(text);
    }
  };

  const blockIndex = () => digest.blocks.length;

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        drain();
        if (stack.length >= MAX_DEPTH) throw new TooDeep();
        const parent = top();
        if (BLOCK_TAGS.has(name)) {
          flush();
          blockTag = name;
        } else {
          pendingBoundary = true;
        }
        let zone = ZONE_TAGS[name] ?? parent?.zone ?? "main";
        if (zone === "main" || zone === "header") {
          const cls = `${attrs.class ?? ""} ${attrs.id ?? ""} ${attrs.role ?? ""}`.slice(0, 300);
          if (/\bcontentinfo\b/.test(cls)) zone = "footer";
          else if (/\bnavigation\b/.test(cls)) zone = "nav";
          else for (const [pattern, z] of ZONE_CLASS) if (pattern.test(cls)) {
            zone = z;
            break;
          }
        }
        const style = (attrs.style ?? "").slice(0, 300).toLowerCase();
        // An inline element hidden by its style inside visible text is the classic
        // anti-spam decoy (`info<span style="display:none">nospam</span>@…`): skip its text.
        const hiddenInline = !BLOCK_TAGS.has(name) && /display\s*:\s*none|visibility\s*:\s*hidden/.test(style);
        const hidden = (parent?.hidden ?? false) || HIDDEN_TAGS.has(name) || hiddenInline;
        const element: OpenElement = {
          name,
          zone,
          hidden,
          block: blockIndex(),
          offset: length,
          reverse: /bidi-override/.test(style) && /direction\s*:\s*rtl/.test(style),
          itempropEmail: /(?:^|\s)email(?:\s|$)/i.test(attrs.itemprop ?? ""),
        };
        stack.push(element);

        switch (name) {
          case "title":
            inTitle = !titleDone;
            break;
          case "base":
            if (digest.baseHref === undefined && attrs.href) digest.baseHref = attrs.href.trim();
            break;
          case "meta": {
            const key = (attrs.name ?? attrs.property ?? attrs.itemprop ?? "").trim().toLowerCase();
            const content = attrs.content ?? "";
            if ((attrs["http-equiv"] ?? "").trim().toLowerCase() === "refresh") {
              const target = /url\s*=\s*['"]?([^'"]+)/i.exec(content.slice(0, 2048));
              if (target && digest.refresh === undefined) digest.refresh = target[1]!.trim();
            } else if (key === "email" && content) {
              digest.microdata.push({ value: content.slice(0, 320), block: blockIndex() });
            } else if (key && content && !(key in digest.meta) && Object.keys(digest.meta).length < 64) {
              digest.meta[key] = content.slice(0, 4000);
            }
            break;
          }
          case "script": {
            const type = (attrs.type ?? "").trim().toLowerCase();
            const kind = type === "application/ld+json" ? "jsonld" : type === "" || /javascript|json|ecmascript|module/.test(type) ? "data" : "skip";
            script = { kind, parts: [], size: 0 };
            break;
          }
          case "frame":
          case "iframe":
            if (attrs.src && digest.frames.length < 20) digest.frames.push(attrs.src.trim());
            break;
          case "a":
          case "area": {
            const href = (attrs.href ?? "").trim();
            if (href && digest.links.length < LIMITS.links && !hidden) {
              const extra = [attrs["aria-label"], attrs.title].filter((v): v is string => Boolean(v)).map((v) => v.slice(0, 200));
              if (name === "area" && attrs.alt) extra.push(attrs.alt.slice(0, 200));
              link = { href: href.slice(0, 4096), parts: [], extra, zone, block: blockIndex(), offset: length };
            }
            const cf = /\/cdn-cgi\/l\/email-protection#([0-9a-f]{4,400})/i.exec(href);
            if (cf) digest.cfemails.push({ hex: cf[1]!, block: blockIndex() });
            break;
          }
          case "img":
            if (link && attrs.alt) link.extra.push(attrs.alt.slice(0, 200));
            break;
        }
        // Joomla 4/5 email cloaking: the local part and the domain base64-encoded in attributes.
        if (name === "joomla-hidden-mail" && attrs.first && attrs.last) {
          const part = (b64: string) => Buffer.from(b64.slice(0, 400), "base64").toString("utf8");
          digest.microdata.push({ value: `${part(attrs.first)}@${part(attrs.last)}`, block: blockIndex() });
        }
        if (attrs["data-cfemail"]) digest.cfemails.push({ hex: attrs["data-cfemail"].slice(0, 800), block: blockIndex() });
        if (attrs["data-href"] && /facebook\.com/i.test(attrs["data-href"]) && digest.embeds.length < 20) digest.embeds.push(attrs["data-href"].slice(0, 2048));
        if (element.itempropEmail) {
          const value = attrs.content ?? (attrs.href && /^mailto:/i.test(attrs.href) ? attrs.href : undefined);
          if (value) {
            digest.microdata.push({ value: value.slice(0, 320), block: blockIndex() });
            element.itempropEmail = false;
          }
        }
        // Old sites navigate from table cells and buttons: onclick="location.href='kontakt.html'".
        const onclick = attrs.onclick;
        if (onclick && !link && digest.links.length < LIMITS.links) {
          const target = /location(?:\.href)?\s*=\s*['"]([^'"]{1,300})['"]/.exec(onclick.slice(0, 500));
          if (target) digest.links.push({ href: target[1]!, label: "", zone, block: blockIndex(), offset: length });
        }
      },

      ontext(text) {
        if (script) {
          if (script.kind !== "skip" && script.size < (script.kind === "jsonld" ? LIMITS.jsonLd : LIMITS.script) && scriptBudget > 0) {
            const piece = text.slice(0, Math.min(scriptBudget, LIMITS.script - script.size));
            script.parts.push(piece);
            script.size += piece.length;
            scriptBudget -= piece.length;
          }
          return;
        }
        if (inTitle) {
          if (digest.title.length < 1000) digest.title += text.slice(0, 1000);
          return;
        }
        if (hiddenNow() || textBudget <= 0) return;
        if (pendingText.length < 65_536) pendingText += text;
        else {
          drain();
          pendingText = text;
        }
      },

      onclosetag(name) {
        drain();
        // Pop to the matching element (htmlparser2 reports implied closes too).
        let index = stack.length - 1;
        while (index >= 0 && stack[index]!.name !== name) index--;
        if (index < 0) return;
        const element = stack[index]!;
        stack.length = index;

        if (element.reverse && element.block === blockIndex() && length > element.offset) {
          const text = parts.join("");
          const reversed = text.slice(0, element.offset) + [...text.slice(element.offset)].reverse().join("");
          parts = [reversed];
        }
        if (element.itempropEmail && element.block === blockIndex() && length > element.offset) {
          digest.microdata.push({ value: parts.join("").slice(element.offset, element.offset + 320), block: blockIndex() });
        }
        switch (name) {
          case "title":
            if (inTitle) titleDone = true;
            inTitle = false;
            break;
          case "script":
            if (script && script.kind !== "skip" && script.size > 0) {
              const body = script.parts.join("");
              if (script.kind === "jsonld") digest.jsonLd.push(body);
              else {
                digest.scripts.push(body);
                if (digest.refresh === undefined && body.length < 2000) {
                  const target = /(?:window\.|document\.|top\.|self\.)?location(?:\.href)?\s*=\s*['"]([^'"]{1,300})['"]|location\.replace\(\s*['"]([^'"]{1,300})['"]\s*\)/.exec(body);
                  if (target) digest.refresh = (target[1] ?? target[2])!;
                }
              }
            }
            script = undefined;
            break;
          case "a":
          case "area":
            if (link) {
              const label = [link.parts.join("").trim(), ...link.extra].filter(Boolean).join(" ").slice(0, 300);
              digest.links.push({ href: link.href, label, zone: link.zone, block: link.block, offset: link.offset });
              link = undefined;
            }
            break;
        }
        if (BLOCK_TAGS.has(name)) {
          flush();
          blockTag = top()?.name ?? "body";
        } else {
          pendingBoundary = true;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  try {
    for (let i = 0; i < html.length; i += CHUNK) {
      if (performance.now() > deadline) throw new PageTooSlowError("the page took longer than its reading budget");
      parser.write(html.slice(i, i + CHUNK));
    }
    parser.end();
  } catch (err) {
    // Too deep: what was read so far is the page.
    if (!(err instanceof TooDeep)) throw err;
  }
  drain();
  flush();
  digest.title = digest.title.replace(/\s+/g, " ").trim();
  return digest;
}
