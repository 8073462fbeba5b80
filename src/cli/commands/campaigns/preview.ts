import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";

/** `outreach campaigns preview ID --contact C`: the message one contact would get (the server checks --step). */
export interface PreviewOptions {
  id: string;
  contact: string;
  step?: string;
  html?: boolean;
  json?: boolean;
}

export function registerPreview(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "preview",
      description: "render the message one contact would get: headers, subject and the text part (--html for the HTML part)",
      json: true,
      examples: [
        "outreach campaigns preview cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ",
        "outreach campaigns preview cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ --html > preview.html",
      ],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .requiredOption("--contact <id>", "contact id")
        .option("--step <n>", "which step: 0 (default) the first message, n the n-th follow-up")
        .option("--html", "print the HTML part instead of the text part"),
  ).action((id: string, flags: Omit<PreviewOptions, "id">) => runPreview(ctx, { id, ...flags }));
}

export async function runPreview(ctx: CommandContext, { id, ...options }: PreviewOptions): Promise<void> {
  const query = { contactId: options.contact, ...(options.step !== undefined ? { step: options.step } : {}) };
  const message = await (await ctx.client()).call("campaigns.preview", { params: { id }, query });
  if (options.json) return printJson(ctx.io, message);
  if (options.html) return void ctx.io.stdout.write(message.html.endsWith("\n") ? message.html : message.html + "\n");
  const lines = [`From: ${message.from}`, `To: ${message.to}`, `Subject: ${message.subject}`, ...Object.entries(message.headers).map(([k, v]) => `${k}: ${v}`), "", message.text];
  ctx.io.stdout.write(lines.join("\n") + (message.text.endsWith("\n") ? "" : "\n"));
}
