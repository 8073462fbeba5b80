import { aiDraftOperations } from "./ai-drafts.js";
import { brandOperations } from "./brand.js";
import { campaignReplyOperations } from "./campaign-replies.js";
import { campaignOperations } from "./campaigns.js";
import { campaignSequenceOperations } from "./campaign-sequences.js";
import { contactOperations } from "./contacts.js";
import { leadOperations } from "./leads.js";
import type { Operation } from "./operation.js";
import { sendingDomainOperations } from "./sending-domains.js";
import { teamApiKeyOperations } from "./team-api-keys.js";
import { teamOperations } from "./teams.js";
import { unsubscribeOperations } from "./unsubscribe.js";
import { userOperations } from "./user.js";

export * from "./operation.js";
export type { ErrorLine, StreamLine } from "./stream.js";

/**
 * The API contract: every operation by id. The server binds one handler to each
 * (src/server/routes/), the client calls them by id (`client.call("contacts.add", …)`),
 * and the OpenAPI document is generated from them. Each resource's file declares its
 * operations; add a new resource's here.
 */
export const contract = {
  ...userOperations,
  ...teamOperations,
  ...leadOperations,
  ...contactOperations,
  ...campaignOperations,
  ...campaignSequenceOperations,
  ...campaignReplyOperations,
  ...aiDraftOperations,
  ...sendingDomainOperations,
  ...brandOperations,
  ...teamApiKeyOperations,
  ...unsubscribeOperations,
};

export type Contract = typeof contract;
export type OperationId = keyof Contract;
/** The ids of the operations that can answer as an NDJSON stream. */
export type StreamOperationId = { [K in OperationId]: Contract[K] extends { stream: object } ? K : never }[OperationId];

/** Every operation, in the order of the contract. */
export const operations: readonly Operation[] = Object.values(contract);
