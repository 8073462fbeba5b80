import { jsonLdNodes } from "./json-ld.js";
import type { PageDigest } from "./page-digest.js";
import { plainText } from "./plain-text.js";
import { fold } from "./vocabulary.js";

export const SUMMARY_MAX = 1200;
const MIN_TEXT = 60;
/** Boilerplate blocks that are never a description of the business. */
const BOILERPLATE = /cookie|javascript|browser|©|copyright|all rights reserved|alle rechte|tous droits|tutti i diritti|todos los derechos|datenschutz|privacy policy|gdpr|dsgvo/i;
/**
 * Taglines and descriptions a site builder writes for the owner, in the languages it ships
 * in ("Just another WordPress site", "Eine weitere WordPress-Website"…), and other texts that
 * describe the site rather than the business. Matched on folded text.
 */
const DEFAULT_TAGLINE =
  /^(?:just another wordpress|another wordpress site|my wordpress (?:blog|site)|ein(?:e)? weitere[rs]? wordpress|un autre site wordpress|un site utilisant wordpress|un altro sito (?:targato )?wordpress|un nuovo sito (?:targato )?wordpress|otro sitio (?:realizado con )?wordpress|yksi uusi wordpress|egy (?:ujabb|ujabb) wordpress|welcome to (?:my|our) (?:new )?(?:site|website|blog)|my (?:site|website|blog)$|this is my (?:site|website)|site description$|default description$|description of (?:my|your) (?:site|website)|create your (?:own )?website|erstellt mit|created with|powered by|built with|made with|proudly powered|home(?: page)?$|startseite$|willkommen$|welcome$|accueil$|benvenut|bienvenid|tervetuloa$|udvozoljuk$|untitled|add a description|describe your|your (?:site|business) description|meta description$)/;

export function isDefaultTagline(text: string): boolean {
  return DEFAULT_TAGLINE.test(fold(text).replace(/\s+/g, " ").trim());
}

/**
 * A plain-text description of the business: `<meta name=description>`, then
 * `og:description`, then JSON-LD `description` (skipping builders' default taglines and
 * texts that only repeat the title), else the first substantial block of body text,
 * whatever holds it (a paragraph, a table cell, a `<font>`), outside navigation and footers.
 */
export function findSummary(digest: PageDigest): string | undefined {
  const candidates = [
    digest.meta.description,
    digest.meta["og:description"],
    digest.meta["twitter:description"],
    ...jsonLdNodes(digest.jsonLd)
      .map((n) => n.description)
      .filter((d): d is string => typeof d === "string"),
  ];
  const title = fold(digest.title).trim();
  for (const candidate of candidates) {
    const text = candidate === undefined ? "" : plainText(candidate, SUMMARY_MAX);
    if (text.length >= 20 && !isDefaultTagline(text) && fold(text).trim() !== title) return text;
  }
  for (const block of digest.blocks) {
    if (block.zone !== "main" || block.heading || block.linkChars > block.text.length * 0.3) continue;
    const text = plainText(block.text, SUMMARY_MAX);
    if (text.length < MIN_TEXT || text.split(" ").length < 8 || BOILERPLATE.test(text) || isDefaultTagline(text)) continue;
    // Prose has spaces and letters; a run of codes, numbers or one long token is not a description.
    const letters = text.replace(/[^\p{L}\s]/gu, "").length;
    if (letters < text.length * 0.6) continue;
    return text;
  }
  return undefined;
}

/** The page's title for `businessSources`, ≤ 300 characters. */
export function pageTitle(digest: PageDigest, fallback: string): string {
  const title = plainText(digest.title || digest.meta["og:title"] || "", 300);
  return title || plainText(fallback, 300);
}
