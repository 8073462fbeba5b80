import { type Command, Option } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson, printRows } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";
import { limitFlag } from "../../flags.js";

/** `outreach admin plans list`: the plans and their default limits. */
export type PlansListOptions = JsonOption;

export function registerPlansList(plans: Command, ctx: CommandContext): void {
  defineVerb(plans, { name: "list", description: "list plans and their limits", json: true, examples: ["outreach admin plans list"] }).action((options: PlansListOptions) => runPlansList(ctx, options));
}

export function runPlansList(ctx: CommandContext, options: PlansListOptions): void {
  const rows = ctx.openInstance().services.plans.all();
  if (options.json) return printJson(ctx.io, rows);
  printRows(ctx.io, ctx.env, rows, [
    { header: "PLAN", value: (p) => p.name },
    { header: "DAILY SEARCHES", value: (p) => p.dailySearches ?? "unlimited" },
    { header: "CONTACTS", value: (p) => p.maxContacts ?? "unlimited" },
    { header: "CUSTOM SENDER", value: (p) => (p.customSender ? "yes" : "no") },
    { header: "DAILY SENDS", value: (p) => p.dailySends ?? "unlimited" },
  ]);
}

/** `outreach admin plans set NAME`: create a plan or change its default limits. */
export interface PlansSetFlags {
  dailySearches?: string;
  maxContacts?: string;
  customSender?: "yes" | "no";
  dailySends?: string;
}

/** A limit: undefined leaves it as it is, null is unlimited. */
export interface PlansSetOptions {
  name: string;
  dailySearches: number | null | undefined;
  maxContacts: number | null | undefined;
  customSender: boolean | undefined;
  dailySends: number | null | undefined;
}

export function registerPlansSet(plans: Command, ctx: CommandContext): void {
  defineVerb(
    plans,
    {
      name: "set",
      description: "create a plan or change its default limits",
      examples: ["outreach admin plans set free --daily-searches 50", "outreach admin plans set agency --daily-searches 2000 --max-contacts 200000 --custom-sender yes --daily-sends 20000"],
    },
    (command) =>
      command
        .argument("<plan>", "plan name")
        .option("--daily-searches <n>", "daily lead searches (a number or 'unlimited')")
        .option("--max-contacts <n>", "contacts per workspace (a number or 'unlimited')")
        .addOption(new Option("--custom-sender <yes|no>", "whether workspaces on this plan may add sending domains").choices(["yes", "no"]))
        .option("--daily-sends <n>", "messages a workspace may send per UTC day (a number or 'unlimited')"),
  ).action((name: string, flags: PlansSetFlags) => runPlansSet(ctx, parsePlansSetOptions(name, flags)));
}

export function parsePlansSetOptions(name: string, flags: PlansSetFlags): PlansSetOptions {
  return {
    name,
    dailySearches: limitFlag("--daily-searches", flags.dailySearches),
    maxContacts: limitFlag("--max-contacts", flags.maxContacts),
    customSender: flags.customSender === undefined ? undefined : flags.customSender === "yes",
    dailySends: limitFlag("--daily-sends", flags.dailySends),
  };
}

export function runPlansSet(ctx: CommandContext, { name, ...limits }: PlansSetOptions): void {
  const plan = ctx.openInstance().services.plans.set(name, limits);
  ctx.info(
    `plan ${plan.name}: daily searches ${plan.dailySearches ?? "unlimited"}, contacts ${plan.maxContacts ?? "unlimited"}, ` +
      `custom sender ${plan.customSender ? "yes" : "no"}, daily sends ${plan.dailySends ?? "unlimited"}.`,
  );
}
