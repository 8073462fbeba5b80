import MarkdownIt from "markdown-it";

type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];

/**
 * A campaign's rendered Markdown as the two parts of a message: HTML (markdown-it, raw
 * HTML off, so anything that looks like a tag is text) and plain text from the same parse.
 * Both end with the footer every message carries: the brand, its postal address
 * (CAN-SPAM) and the unsubscribe link.
 */

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

export interface Footer {
  brandName: string | null;
  postalAddress: string;
  unsubscribeUrl: string;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A body's Markdown parsed once, for both parts (parsing is most of rendering; a delivery renders every message). */
export function parseBody(bodyMarkdown: string): Token[] {
  return markdown.parse(bodyMarkdown, {});
}

export function renderHtmlPart(body: Token[], footer: Footer, language: string | null): string {
  const content = markdown.renderer.render(body, markdown.options, {});
  const address = footer.postalAddress.split("\n").map(escapeHtml).join("<br>");
  const lines = [footer.brandName ? escapeHtml(footer.brandName) : null, address].filter(Boolean).join("<br>");
  return [
    "<!doctype html>",
    `<html${language ? ` lang="${escapeHtml(language)}"` : ""}><head><meta charset="utf-8"></head>`,
    '<body style="font-family:sans-serif;line-height:1.5">',
    content.trimEnd(),
    '<hr style="border:none;border-top:1px solid #ccc;margin-top:2em">',
    `<p style="font-size:12px;color:#555">${lines}<br><a href="${escapeHtml(footer.unsubscribeUrl)}">Unsubscribe</a></p>`,
    "</body></html>",
    "",
  ].join("\n");
}

export function renderTextPart(tokens: readonly Token[], footer: Footer): string {
  const body = tokensToText(tokens).trim();
  const sign = [footer.brandName, footer.postalAddress].filter(Boolean).join("\n");
  return `${body}\n\n-- \n${sign}\nUnsubscribe: ${footer.unsubscribeUrl}\n`;
}

/** Inline tokens as plain text: links keep their address (`label <url>`), images their alt text. */
function inlineText(children: readonly Token[]): string {
  let out = "";
  let href: string | null = null;
  let label = "";
  for (const t of children) {
    const text =
      t.type === "text" || t.type === "code_inline" ? t.content : t.type === "softbreak" || t.type === "hardbreak" ? "\n" : t.type === "image" ? t.content : "";
    if (t.type === "link_open") {
      href = String(t.attrGet("href") ?? "");
      label = "";
    } else if (t.type === "link_close") {
      out += href && href !== label && `mailto:${label}` !== href ? `${label} <${href}>` : label;
      href = null;
    } else if (href !== null) {
      label += text;
    } else {
      out += text;
    }
  }
  return out;
}

/** Markdown as readable plain text. */
export function markdownToText(source: string): string {
  return tokensToText(parseBody(source));
}

/** markdown-it's token stream as readable plain text (the tokens are only read). */
function tokensToText(tokens: readonly Token[]): string {
  const blocks: string[] = [];
  // Per open list: its kind and the next number; per open blockquote a "> " prefix.
  const lists: Array<{ ordered: boolean; next: number }> = [];
  let quote = 0;
  let pendingMarker = "";
  let row: string[] | null = null;
  const push = (text: string) => {
    const indent = "  ".repeat(Math.max(0, lists.length - 1));
    const prefix = "> ".repeat(quote);
    const lines = text.split("\n");
    const marked = lines.map((line, i) => prefix + (i === 0 ? indent + pendingMarker : indent + " ".repeat(pendingMarker.length)) + line);
    pendingMarker = "";
    blocks.push(marked.join("\n"));
  };
  for (const t of tokens) {
    switch (t.type) {
      case "bullet_list_open":
        lists.push({ ordered: false, next: 0 });
        break;
      case "ordered_list_open":
        lists.push({ ordered: true, next: Number(t.attrGet("start") ?? 1) });
        break;
      case "bullet_list_close":
      case "ordered_list_close":
        lists.pop();
        break;
      case "list_item_open": {
        const list = lists[lists.length - 1]!;
        pendingMarker = list.ordered ? `${list.next++}. ` : "- ";
        break;
      }
      case "blockquote_open":
        quote++;
        break;
      case "blockquote_close":
        quote--;
        break;
      case "inline":
        if (row) row.push(inlineText(t.children ?? []));
        else push(inlineText(t.children ?? []));
        break;
      case "code_block":
      case "fence":
        push(t.content.replace(/\n$/, "").split("\n").map((l) => `    ${l}`).join("\n"));
        break;
      case "hr":
        push("----");
        break;
      case "tr_open":
        row = [];
        break;
      case "tr_close":
        push(row!.join(" | "));
        row = null;
        break;
    }
  }
  // Items of one tight list stay on consecutive lines; everything else is a paragraph.
  return joinBlocks(blocks);
}

function joinBlocks(blocks: string[]): string {
  let out = "";
  for (const block of blocks) {
    const isItem = /^(> )*\s*(- |\d+\. )/.test(block);
    const previousIsItem = /(^|\n)(> )*\s*(- |\d+\. )[^\n]*$/.test(out);
    out += out === "" ? block : isItem && previousIsItem ? `\n${block}` : `\n\n${block}`;
  }
  return out;
}
