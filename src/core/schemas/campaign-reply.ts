import { z } from "zod";
import { Timestamp } from "./common.js";

const pageNumber = z.coerce.number().int().min(1).max(1_000_000).default(1);
const pageLimit = z.coerce.number().int().min(1).max(100).default(20);

/** A reply (or auto-reply) read from the mailbox and matched to an execution (docs/api.md, "Replies"). */
export const CampaignReply = z
  .object({
    id: z.string(),
    executionId: z.string(),
    contactId: z.string(),
    /** The step replied to (0: the first message). */
    step: z.number().int(),
    /** The sender's address. */
    from: z.string(),
    subject: z.string(),
    /** When the mailbox received it (the server's INTERNALDATE, else the Date header). */
    receivedAt: Timestamp,
    /** An out-of-office or other automatic answer: it stops the sequence only with `stopOnAutoReply`. */
    autoReply: z.boolean(),
    /** At most 300 characters of the plain text, the quoted history removed. */
    snippet: z.string(),
  })
  .meta({ id: "CampaignReply" });
export type CampaignReply = z.infer<typeof CampaignReply>;

export const ListRepliesQuery = z.strictObject({ page: pageNumber, limit: pageLimit });
export type ListRepliesQuery = z.infer<typeof ListRepliesQuery>;

export const ReplyList = z
  .object({
    replies: z.array(CampaignReply),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "ReplyList" });
