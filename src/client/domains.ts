import { SuccessBody } from "../core/schemas/common.js";
import { TeamsResponse } from "../core/schemas/team.js";
import { SendingDomainList, type AddSendingDomainBody } from "../core/schemas/sending-domain.js";
import type { ApiClient } from "./api-client.js";

const BASE = "/api/v1/settings/sending-domains";

/** Endpoints 5-8. `teamId` is the caller's active workspace (decisions.md N2). */
export class SendingDomainsApi {
  constructor(private readonly client: ApiClient) {}

  add(teamId: string, body: AddSendingDomainBody, signal?: AbortSignal) {
    return this.client.request("POST", BASE, SuccessBody, { query: { teamId }, body, signal });
  }

  list(teamId: string, signal?: AbortSignal) {
    return this.client.request("GET", BASE, SendingDomainList, { query: { teamId }, signal });
  }

  verify(id: string, signal?: AbortSignal) {
    return this.client.request("POST", `${BASE}/${encodeURIComponent(id)}/verify`, SuccessBody, { signal });
  }

  remove(id: string, signal?: AbortSignal) {
    return this.client.request("DELETE", `${BASE}/${encodeURIComponent(id)}`, SuccessBody, { signal });
  }

  /** The active workspace's id, from endpoint 16. */
  async activeTeamId(signal?: AbortSignal): Promise<string> {
    return (await this.client.request("GET", "/api/v1/teams", TeamsResponse, { signal })).activeTeam.id;
  }
}
