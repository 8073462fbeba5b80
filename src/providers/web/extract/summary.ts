import type { CheerioAPI } from "cheerio";
import { cleanText, jsonLdNodes } from "./dom.js";

export const SUMMARY_MAX = 1200;
const MIN_PARAGRAPH = 60;
/** Boilerplate paragraphs that are never a description of the business. */
const BOILERPLATE = /cookie|javascript|browser|©|copyright|all rights reserved|datenschutz|privacy policy/i;

/**
 * A plain-text description of the business: `<meta name=description>`, then
 * `og:description`, then JSON-LD `description`, else the first substantial paragraph.
 */
export function findSummary($: CheerioAPI): string | undefined {
  const candidates = [
    $('meta[name="description" i]').attr("content"),
    $('meta[property="og:description" i]').attr("content"),
    ...jsonLdNodes($)
      .map((n) => n.description)
      .filter((d): d is string => typeof d === "string"),
  ];
  for (const candidate of candidates) {
    const text = candidate === undefined ? "" : cleanText(candidate, SUMMARY_MAX);
    if (text.length >= 20) return text;
  }
  for (const el of $("main p, article p, p").toArray()) {
    const text = cleanText($(el).text(), SUMMARY_MAX);
    if (text.length >= MIN_PARAGRAPH && !BOILERPLATE.test(text)) return text;
  }
  return undefined;
}

/** The page's title for `businessSources`, ≤ 300 characters. */
export function pageTitle($: CheerioAPI, fallback: string): string {
  const title = cleanText($("title").first().text() || $('meta[property="og:title" i]').attr("content") || "", 300);
  return title || cleanText(fallback, 300);
}
