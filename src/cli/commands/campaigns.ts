import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
import { registerCancel } from "./campaigns/cancel.js";
import { registerCreate } from "./campaigns/create.js";
import { registerDraft } from "./campaigns/draft.js";
import { registerEdit } from "./campaigns/edit.js";
import { registerExecutions } from "./campaigns/executions.js";
import { registerLaunch } from "./campaigns/launch.js";
import { registerLifecycleVerbs } from "./campaigns/lifecycle.js";
import { registerList } from "./campaigns/list.js";
import { registerOpeners } from "./campaigns/openers.js";
import { registerPreview } from "./campaigns/preview.js";
import { registerReplies } from "./campaigns/replies.js";
import { registerShow } from "./campaigns/show.js";
import { registerTrigger } from "./campaigns/trigger.js";
import { registerUnconfirmed } from "./campaigns/unconfirmed.js";

/** `outreach campaigns`: each verb is its own file in campaigns/; attached here in the order of --help. */
export function registerCampaigns(program: Command, ctx: CommandContext): void {
  const campaigns = program.command("campaigns").description("create campaigns, change their lifecycle and trigger lifetime campaigns");
  attachVerbs(
    campaigns,
    ctx,
    registerList,
    registerShow,
    registerCreate,
    registerEdit,
    registerLaunch,
    registerPreview,
    registerLifecycleVerbs,
    registerTrigger,
    registerExecutions,
    registerCancel,
    registerUnconfirmed,
    registerDraft,
    registerOpeners,
    registerReplies,
  );
}
