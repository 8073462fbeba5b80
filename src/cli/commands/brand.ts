import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { CallInput } from "../../client/api-client.js";
import type { BrandSettings } from "../../core/schemas/brand.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { mutuallyExclusive } from "../flags.js";
import { readAll } from "../io.js";
import { printJson, printRecord } from "../output.js";
import { attachVerbs, defineVerb } from "./shared.js";
import { apiFields } from "../flag-language.js";

/** Flag → API field, for `set` and `--clear`. */
const FIELDS = {
  name: "brandName",
  description: "brandDescription",
  email: "brandEmail",
  website: "websiteUrl",
  language: "emailLanguage",
  "logo-url": "logoUrl",
  "design-system": "brandDesignSystem",
  "postal-address": "postalAddress",
  "time-zone": "timeZone",
} as const;
type FlagName = keyof typeof FIELDS;

function printBrand(ctx: CommandContext, brand: BrandSettings): void {
  const design = Object.keys(brand.brandDesignSystem);
  printRecord(ctx.io, [
    ["name", brand.brandName],
    ["description", brand.brandDescription],
    ["email", brand.brandEmail],
    ["website", brand.websiteUrl],
    ["language", brand.emailLanguage],
    ["logo", brand.logoUrl],
    ["design system", design.length ? design.join(", ") : "(empty)"],
    ["postal address", brand.postalAddress?.replace(/\n/g, ", ") ?? null],
    ["time zone", brand.timeZone],
  ]);
}

async function readDesignSystem(ctx: CommandContext, file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === "-" ? await readAll(ctx.io.stdin) : readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`--design-system ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--design-system ${file}: not valid JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`--design-system ${file}: must hold a JSON object`);
  return value as Record<string, unknown>;
}

export function registerBrand(program: Command, ctx: CommandContext): void {
  const brand = program.command("brand").description("the workspace's brand settings and its generated style guide");
  attachVerbs(brand, ctx, registerBrandShow, registerBrandSet);
}

/** `outreach brand show`: the settings, or the generated style guide. */
export interface BrandShowOptions {
  json?: boolean;
  markdown?: boolean;
}

export function registerBrandShow(brand: Command, ctx: CommandContext): void {
  defineVerb(brand, { name: "show", description: "show the brand settings", json: true, examples: ["outreach brand show", "outreach brand show --markdown > style-guide.md"] }, (command) =>
    command.option("--markdown", "print the generated style guide (Markdown)"),
  ).action((options: BrandShowOptions) => runBrandShow(ctx, options));
}

export async function runBrandShow(ctx: CommandContext, options: BrandShowOptions): Promise<void> {
  const settings = await (await ctx.client()).call("brand.get");
  if (options.json) return printJson(ctx.io, settings);
  if (options.markdown) return void ctx.io.stdout.write(settings.brandDesignMarkdown);
  printBrand(ctx, settings);
}

/** `outreach brand set`: what commander hands over. */
export type BrandSetFlags = Partial<Record<"name" | "description" | "email" | "website" | "language" | "logoUrl" | "designSystem" | "postalAddress" | "timeZone", string>> & {
  clear: string[];
  json?: boolean;
  markdown?: boolean;
};

export interface BrandSetOptions {
  /** The fields to change (null clears one), but the design system, which is in a file. */
  update: CallInput<"brand.update">["body"];
  /** --design-system: a JSON file, or - for stdin. */
  designSystemFile?: string;
  json?: boolean;
  markdown?: boolean;
}

export function registerBrandSet(brand: Command, ctx: CommandContext): void {
  const command = defineVerb(
    brand,
    {
      name: "set",
      description: "change brand settings; only the flags given change",
      json: true,
      examples: [
        'outreach brand set --name "Acme Dental" --email hello@acme.example --language de-CH',
        "outreach brand set --design-system brand.json --markdown",
        "outreach brand set --clear logo-url",
        'outreach brand set --postal-address "Acme Dental\\n12 Main Street\\nSpringfield, IL 62701"',
      ],
    },
    (command) =>
      command
        .option("--name <name>", "brand name")
        .option("--description <text>", "what the business does, in a sentence or two")
        .option("--email <email>", "brand email address")
        .option("--website <url>", "website (http or https)")
        .option("--language <tag>", "email language, a BCP 47 tag (en, de-CH)")
        .option("--logo-url <url>", "logo URL (http or https)")
        .option("--design-system <file>", "JSON file with the design system (colors, typography, voice, logo, spacing…); - for stdin")
        .option("--postal-address <text>", "the sender's postal address, printed in every message's footer (\\n for a new line)")
        .option("--time-zone <zone>", "IANA time zone of send windows for contacts without their own (Europe/Berlin); default UTC")
        .option("--clear <field>", `clear a field; repeatable (${Object.keys(FIELDS).join(", ")})`, (v: string, prev: string[]) => [...prev, v], [] as string[])
        .option("--markdown", "print the generated style guide afterwards"),
  ).action((flags: BrandSetFlags) => runBrandSet(ctx, parseBrandSetOptions(flags)));
  apiFields(command, Object.fromEntries(Object.entries(FIELDS).map(([flag, field]) => [field, `--${flag}`])));
}

/** The fields given, each --clear checked against them; at least one change. */
export function parseBrandSetOptions(options: BrandSetFlags): BrandSetOptions {
  const update: CallInput<"brand.update">["body"] = {};
  if (options.name !== undefined) update.brandName = options.name;
  if (options.description !== undefined) update.brandDescription = options.description;
  if (options.email !== undefined) update.brandEmail = options.email;
  if (options.website !== undefined) update.websiteUrl = options.website;
  if (options.language !== undefined) update.emailLanguage = options.language;
  if (options.logoUrl !== undefined) update.logoUrl = options.logoUrl;
  if (options.postalAddress !== undefined) update.postalAddress = options.postalAddress.replace(/\\n/g, "\n");
  if (options.timeZone !== undefined) update.timeZone = options.timeZone;
  for (const flag of options.clear) {
    if (!(flag in FIELDS)) throw new UsageError(`--clear ${flag}: not a brand field (one of ${Object.keys(FIELDS).join(", ")})`);
    const field = FIELDS[flag as FlagName];
    const given = field === "brandDesignSystem" ? options.designSystem : update[field];
    mutuallyExclusive({ [`--${flag}`]: given, [`--clear ${flag}`]: true }, `--clear ${flag} contradicts --${flag}`);
    update[field] = null;
  }
  if (Object.keys(update).length === 0 && options.designSystem === undefined) {
    throw new UsageError("nothing to change: give at least one of --name, --description, --email, --website, --language, --logo-url, --design-system, --postal-address, --time-zone, --clear");
  }
  return { update, designSystemFile: options.designSystem, json: options.json, markdown: options.markdown };
}

export async function runBrandSet(ctx: CommandContext, options: BrandSetOptions): Promise<void> {
  const update = { ...options.update };
  if (options.designSystemFile !== undefined) update.brandDesignSystem = await readDesignSystem(ctx, options.designSystemFile);
  const settings = await (await ctx.client()).call("brand.update", { body: update });
  if (options.json) return printJson(ctx.io, settings);
  if (options.markdown) return void ctx.io.stdout.write(settings.brandDesignMarkdown);
  printBrand(ctx, settings);
}
