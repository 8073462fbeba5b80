import { IdParams, SuccessBody } from "../schemas/common.js";
import { AddSendingDomainBody, SendingDomainList, TeamIdQuery } from "../schemas/sending-domain.js";
import { defineOperations } from "./operation.js";

const BASE = "/api/v1/settings/sending-domains";

export const sendingDomainOperations = defineOperations({
  "sendingDomains.add": {
    method: "POST",
    idempotent: true,
    path: BASE,
    operationId: "addSendingDomain",
    summary: "Add a sending domain: generates its DKIM key and the DNS records to publish",
    description:
      "Owner or admin; the workspace's plan must include custom sender. The domain is normalised (lower case, IDN to punycode, no trailing dot); IP addresses, single labels and public suffixes are refused; senderEmail must be at the domain or below it.",
    tag: "sending-domains",
    endpoint: 5,
    auth: "user",
    query: TeamIdQuery,
    body: AddSendingDomainBody,
    response: SuccessBody,
    errors: [403, 409],
  },
  "sendingDomains.list": {
    method: "GET",
    path: BASE,
    operationId: "listSendingDomains",
    summary: "The workspace's sending domains with each DNS record's status",
    tag: "sending-domains",
    endpoint: 6,
    auth: "user",
    query: TeamIdQuery,
    response: SendingDomainList,
    errors: [403],
  },
  "sendingDomains.verify": {
    method: "POST",
    path: `${BASE}/:id/verify`,
    operationId: "verifySendingDomain",
    summary: "Look the domain's records up in DNS now and store each one's status",
    description:
      "Owner or admin, plan with custom sender. At most one check per domain every OUTREACH_DOMAIN_VERIFY_INTERVAL seconds (429 with Retry-After). A DNS timeout or server failure never downgrades a record verified earlier.",
    tag: "sending-domains",
    endpoint: 7,
    auth: "user",
    params: IdParams,
    response: SuccessBody,
    errors: [403, 404, 429],
  },
  "sendingDomains.delete": {
    method: "DELETE",
    path: `${BASE}/:id`,
    operationId: "deleteSendingDomain",
    summary: "Remove a sending domain and its DKIM key",
    tag: "sending-domains",
    endpoint: 8,
    auth: "user",
    params: IdParams,
    response: SuccessBody,
    errors: [403, 404],
  },
});
