/**
 * The brand style guide as Markdown (`brandDesignMarkdown`), for writers and templates.
 * A pure function of the settings: the same input always gives the same text (no dates,
 * no randomness; object members in their stored order).
 *
 * `brandDesignSystem` has no shape in the service API; these top-level members are
 * recognised and rendered as their own sections (docs/api.md describes them):
 *
 * - `voice`: a string, or `{tone, personality, audience, do, dont, …}` (strings or lists)
 * - `colors` (or `colours`): `{name: "#0A84FF"}` or `{name: {hex, usage}}`
 * - `typography`: `{role: "Inter"}` or `{role: {family, weight, size, lineHeight, …}}`
 * - `logo`: `{url, altText, minWidth, clearSpace, usage, …}`
 * - `spacing`: `{unit, scale}` or `{name: value}`
 *
 * Every other member is rendered generically under a heading made from its name.
 */
export interface BrandInput {
  brandName: string | null;
  brandDescription: string | null;
  brandEmail: string | null;
  websiteUrl: string | null;
  emailLanguage: string | null;
  logoUrl: string | null;
  brandDesignSystem: Record<string, unknown>;
}

const KNOWN_SECTIONS: ReadonlyArray<{ keys: string[]; title: string; render: (value: unknown) => string[] }> = [
  { keys: ["voice"], title: "Voice", render: renderVoice },
  { keys: ["colors", "colours"], title: "Colours", render: renderColours },
  { keys: ["typography"], title: "Typography", render: renderTypography },
  { keys: ["logo"], title: "Logo", render: renderGeneric },
  { keys: ["spacing"], title: "Spacing", render: renderGeneric },
];

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** A single line: Markdown needs no more than collapsed whitespace here. */
function inline(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value.replace(/\s+/g, " ").trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) return value.map(inline).join(", ");
  return JSON.stringify(value);
}

function cell(value: unknown): string {
  return inline(value).replace(/\|/g, "\\|");
}

/** `brandColors` → "Brand colors", `dont` → "Don't". */
export function humanise(key: string): string {
  if (key.toLowerCase() === "dont") return "Don't";
  const words = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}

export function languageName(tag: string): string | undefined {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" }).of(tag);
    return name && name !== tag ? name : undefined;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Nested list of any JSON value; scalars inline, arrays of scalars comma-joined. */
function renderGeneric(value: unknown, depth = 0): string[] {
  const pad = "  ".repeat(depth);
  if (isPlainObject(value)) {
    const lines: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      const flat = !isPlainObject(child) && !(Array.isArray(child) && child.some((c) => c !== null && typeof c === "object"));
      if (flat) lines.push(`${pad}- ${humanise(key)}: ${inline(child)}`);
      else lines.push(`${pad}- ${humanise(key)}:`, ...renderGeneric(child, depth + 1));
    }
    return lines;
  }
  if (Array.isArray(value)) {
    return value.flatMap((item) =>
      isPlainObject(item) || Array.isArray(item) ? [`${pad}-`, ...renderGeneric(item, depth + 1)] : [`${pad}- ${inline(item)}`],
    );
  }
  return [`${pad}- ${inline(value)}`];
}

function renderVoice(value: unknown): string[] {
  if (typeof value === "string") return [inline(value)];
  if (!isPlainObject(value)) return renderGeneric(value);
  const lines: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (Array.isArray(child) && (key === "do" || key === "dont" || key === "avoid")) {
      lines.push(`- ${humanise(key)}:`, ...child.map((c) => `  - ${inline(c)}`));
    } else {
      lines.push(...renderGeneric({ [key]: child }));
    }
  }
  return lines;
}

function renderColours(value: unknown): string[] {
  if (!isPlainObject(value)) return renderGeneric(value);
  const rows = Object.entries(value).map(([name, colour]) => {
    const raw = isPlainObject(colour) ? (colour.hex ?? colour.value) : colour;
    const usage = isPlainObject(colour) ? colour.usage : undefined;
    const hex = typeof raw === "string" && HEX.test(raw.trim()) ? `\`#${raw.trim().replace(/^#/, "").toUpperCase()}\`` : cell(raw);
    return `| ${cell(name)} | ${hex} | ${cell(usage)} |`;
  });
  return ["| Name | Value | Usage |", "|---|---|---|", ...rows];
}

function renderTypography(value: unknown): string[] {
  if (!isPlainObject(value)) return renderGeneric(value);
  return Object.entries(value).map(([role, font]) => {
    if (!isPlainObject(font)) return `- ${humanise(role)}: ${inline(font)}`;
    const { family, ...rest } = font;
    const details = Object.entries(rest).map(([k, v]) => `${humanise(k).toLowerCase()} ${inline(v)}`);
    return `- ${humanise(role)}: ${[inline(family ?? ""), ...details].filter(Boolean).join(", ")}`;
  });
}

export function renderBrandMarkdown(input: BrandInput): string {
  const title = `# ${input.brandName ? inline(input.brandName) : "Brand"} style guide`;
  const sections: string[][] = [];

  const brand: string[] = [];
  if (input.brandName) brand.push(`- Name: ${inline(input.brandName)}`);
  if (input.websiteUrl) brand.push(`- Website: ${input.websiteUrl}`);
  if (input.brandEmail) brand.push(`- Sender email: ${input.brandEmail}`);
  if (input.logoUrl) brand.push(`- Logo: ${input.logoUrl}`);
  if (input.emailLanguage) {
    const name = languageName(input.emailLanguage);
    brand.push(`- Email language: ${name ? `${name} (\`${input.emailLanguage}\`)` : `\`${input.emailLanguage}\``}`);
  }
  if (brand.length) sections.push(["## Brand", "", ...brand]);
  if (input.brandDescription) sections.push(["## Description", "", input.brandDescription.trim()]);

  const design = input.brandDesignSystem;
  const used = new Set<string>();
  for (const section of KNOWN_SECTIONS) {
    for (const key of section.keys) {
      if (!(key in design)) continue;
      // Both spellings given (`colors` and `colours`): the second is kept, rendered generically.
      const first = !used.has(section.title);
      used.add(section.title);
      const body = first ? section.render(design[key]) : renderGeneric(design[key]);
      if (body.length) sections.push([`## ${first ? section.title : humanise(key)}`, "", ...body]);
    }
  }
  const knownKeys = new Set(KNOWN_SECTIONS.flatMap((s) => s.keys));
  for (const [key, value] of Object.entries(design)) {
    if (knownKeys.has(key)) continue;
    const body = renderGeneric(value);
    if (body.length) sections.push([`## ${humanise(key)}`, "", ...body]);
  }

  if (sections.length === 0) return `${title}\n\nNo brand settings yet.\n`;
  return [title, ...sections.map((s) => s.join("\n"))].join("\n\n") + "\n";
}
