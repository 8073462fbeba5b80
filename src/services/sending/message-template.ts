import { Liquid, type Template } from "liquidjs";
import { badRequest } from "../../core/errors.js";

/**
 * Campaign subjects and bodies are Liquid templates (LiquidJS, strict variables and
 * filters) over `contact`, `brand` and `unsubscribeUrl` (docs/api.md, "Campaign content").
 * A template is checked when it is saved: a syntax error, an unknown filter or a variable
 * outside that context is a 400 naming it, so a typo never reaches a recipient.
 */

/** The values a message is rendered with. */
export interface TemplateContext {
  /** `opener`: the campaign's AI opener for the contact (docs/api.md, "AI drafts"); "" when it has none. */
  contact: { name: string; email: string; phone: string | null; description: string | null; tags: string[]; opener: string };
  brand: Record<string, unknown>;
  unsubscribeUrl: string;
}

export const CONTACT_FIELDS = ["name", "email", "phone", "description", "tags", "opener"] as const;
export const BRAND_FIELDS = [
  "brandName",
  "brandDescription",
  "brandEmail",
  "websiteUrl",
  "emailLanguage",
  "logoUrl",
  "brandDesignSystem",
  "brandDesignMarkdown",
  "postalAddress",
] as const;

/** Members whose own members may be read (`contact.tags.size`, `brand.brandDesignSystem.colors.primary`). */
const OPEN_ENDED = new Set(["contact.tags", "brand.brandDesignSystem"]);

// Bounds against templates that loop or allocate without end: a campaign renders once per contact.
const LIMITS = { parseLimit: 200_000, renderLimit: 2_000, memoryLimit: 20_000_000 };

/**
 * CommonMark treats a backslash before any ASCII punctuation as that character, literally:
 * a value escaped so is text, never Markdown (a contact named `*Bob*` or `[x](javascript:…)`
 * stays those characters). Line breaks inside a value become spaces, so a value cannot
 * start a heading or a list of its own.
 */
export function escapeMarkdown(value: unknown): string {
  return String(value ?? "")
    .replace(/\s*[\r\n]+\s*/g, " ")
    .replace(/[!-/:-@[-`{-~]/g, "\\$&");
}

/** Header values are one line: any line break in a value becomes a space. */
function oneLine(value: unknown): string {
  return String(value ?? "").replace(/\s*[\r\n]+\s*/g, " ");
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // LiquidJS appends ", line:1, col:4" and a source excerpt: keep the sentence and the position.
  return message.split("\n")[0]!.replace(/^(\w+Error: )/, "");
}

/** The part of a template the messages are built from. */
export type TemplateField = "subject" | "bodyMarkdown";

export class MessageTemplates {
  /** Body: every `{{ }}` output escaped for Markdown (`| raw` opts out). */
  private readonly body = new Liquid({ strictVariables: true, strictFilters: true, ownPropertyOnly: true, outputEscape: escapeMarkdown, ...LIMITS });
  private readonly subject = new Liquid({ strictVariables: true, strictFilters: true, ownPropertyOnly: true, outputEscape: oneLine, ...LIMITS });
  /** Parsed templates by text: a campaign renders the same two templates for every contact. */
  private readonly parsed = new Map<string, Template[]>();

  private engine(field: TemplateField): Liquid {
    return field === "subject" ? this.subject : this.body;
  }

  private parse(field: TemplateField, text: string): Template[] {
    const key = `${field}\0${text}`;
    let templates = this.parsed.get(key);
    if (!templates) {
      templates = this.engine(field).parse(text);
      if (this.parsed.size >= 64) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(key, templates);
    }
    return templates;
  }

  /**
   * Throws a 400 naming the field and the problem: a syntax error, an unknown filter, a
   * variable outside the context, or a failure when rendered with the workspace's brand
   * and a sample contact.
   */
  async validate(field: TemplateField, text: string, brand: Record<string, unknown>, label: string = field): Promise<void> {
    let templates: Template[];
    try {
      templates = this.parse(field, text);
    } catch (err) {
      throw badRequest(`invalid body: ${label} is not a valid Liquid template: ${describe(err)}`);
    }
    const engine = this.engine(field);
    for (const segments of await engine.globalVariableSegments(templates)) {
      const path = segments.map(String);
      const problem = unknownVariable(path);
      if (problem) throw badRequest(`invalid body: ${label} uses an unknown variable ${problem} (${KNOWN_VARIABLES})`);
    }
    try {
      await engine.render(templates, sampleContext(brand));
    } catch (err) {
      throw badRequest(`invalid body: ${label} cannot be rendered: ${describe(err)}`);
    }
  }

  async render(field: TemplateField, text: string, context: TemplateContext): Promise<string> {
    const out = await this.engine(field).render(this.parse(field, text), context);
    return field === "subject" ? oneLine(out).trim() : out;
  }
}

const KNOWN_VARIABLES = `known: ${CONTACT_FIELDS.map((f) => `contact.${f}`).join(", ")}, ${BRAND_FIELDS.map((f) => `brand.${f}`).join(", ")}, unsubscribeUrl`;

/** The unknown part of a variable path (`contact.nme`), or undefined when it is known. */
function unknownVariable(path: string[]): string | undefined {
  const [root, member, ...rest] = path;
  const name = path.join(".");
  if (root === "unsubscribeUrl") return member === undefined || member === "size" ? undefined : name;
  const fields: readonly string[] | undefined = root === "contact" ? CONTACT_FIELDS : root === "brand" ? BRAND_FIELDS : undefined;
  if (!fields) return root;
  if (member === undefined) return undefined;
  if (!fields.includes(member)) return `${root}.${member}`;
  if (rest.length && !OPEN_ENDED.has(`${root}.${member}`) && !(rest.length === 1 && rest[0] === "size")) return name;
  return undefined;
}

/** A sample contact and the real brand, so a strict render fails only on what is really wrong. */
function sampleContext(brand: Record<string, unknown>): TemplateContext {
  return {
    contact: { name: "Sample Contact", email: "contact@example.com", phone: "+1 555 0100", description: "", tags: ["sample"], opener: "Sample opener." },
    brand,
    unsubscribeUrl: "https://example.com/u/sample",
  };
}
