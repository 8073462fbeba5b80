import type { CheerioAPI } from "cheerio";
import type { AnyNode } from "domhandler";

/** Elements whose text is not visible page text. */
const INVISIBLE = new Set(["script", "style", "noscript", "template", "svg", "head", "iframe", "object"]);

/**
 * Every visible text node's content, each one separately. Addresses are looked for per
 * node, never in concatenated text, which would glue neighbouring words onto them
 * ("LS15 8BA" + "admin@…" → "LS15 8BAadmin@…").
 */
export function textNodes($: CheerioAPI): string[] {
  const out: string[] = [];
  const walk = (node: AnyNode) => {
    if (node.type === "text") {
      const text = (node as { data: string }).data;
      if (text.trim()) out.push(text);
      return;
    }
    if ("name" in node && INVISIBLE.has(String((node as { name: string }).name).toLowerCase())) return;
    if ("children" in node) for (const child of (node as { children: AnyNode[] }).children) walk(child);
  };
  for (const node of $.root().toArray()) walk(node);
  return out;
}

/** Collapse whitespace, drop control characters, and cap at `max` characters on a word boundary. */
export function cleanText(text: string, max: number): string {
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/[\u0000-\u001f\u007f\u00ad\u200b-\u200d\ufeff]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd() + "…";
}

/** Every JSON-LD object on the page (graphs and arrays flattened); broken blocks skipped. */
export function jsonLdNodes($: CheerioAPI): Array<Record<string, unknown>> {
  const nodes: Array<Record<string, unknown>> = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 8 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
    const record = value as Record<string, unknown>;
    nodes.push(record);
    for (const child of Object.values(record)) if (child && typeof child === "object") visit(child, depth + 1);
  };
  $('script[type="application/ld+json" i]').each((_i, el) => {
    try {
      visit(JSON.parse($(el).text()), 0);
    } catch {
      // invalid JSON-LD is common; the rest of the page still counts
    }
  });
  return nodes;
}

/** String values of a JSON-LD property that may be a string or an array of strings. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}
