import { ListRepliesQuery, ReplyList } from "../schemas/campaign-reply.js";
import { IdParams } from "../schemas/common.js";
import { defineOperations } from "./operation.js";

export const campaignReplyOperations = defineOperations({
  "campaigns.replies": {
    method: "GET",
    path: "/api/v1/campaigns/:id/replies",
    operationId: "listCampaignReplies",
    summary: "List the replies and auto-replies to a campaign's messages read from the mailbox, newest first",
    tag: "campaigns",
    addition: true,
    auth: "user",
    params: IdParams,
    query: ListRepliesQuery,
    response: ReplyList,
    errors: [404],
  },
});
