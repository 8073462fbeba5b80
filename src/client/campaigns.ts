import {
  CampaignList,
  CampaignResponse,
  ExecutionList,
  TriggerResponse,
  type CampaignType,
  type LifecycleBody,
} from "../core/schemas/campaign.js";
import type { ApiClient } from "./api-client.js";

const path = (id: string, rest = "") => `/api/v1/campaigns/${encodeURIComponent(id)}${rest}`;

export class CampaignsApi {
  constructor(private readonly client: ApiClient) {}

  list(query: { page?: number; limit?: number; status?: string; type?: string } = {}) {
    return this.client.request("GET", "/api/v1/campaigns", CampaignList, { query });
  }

  get(id: string) {
    return this.client.request("GET", path(id), CampaignResponse);
  }

  create(body: { name: string; type: CampaignType; subject: string; scheduledAt?: string }) {
    return this.client.request("POST", "/api/v1/campaigns", CampaignResponse, { body });
  }

  changeLifecycle(id: string, body: LifecycleBody) {
    return this.client.request("PATCH", path(id, "/lifecycle"), CampaignResponse, { body });
  }

  /** Needs a team API key with scope campaigns:trigger: pass a client made with `withToken(key)`. */
  trigger(id: string, contactId: string) {
    return this.client.request("POST", path(id, "/trigger"), TriggerResponse, { body: { contactId } });
  }

  executions(id: string, query: { page?: number; limit?: number; status?: string } = {}) {
    return this.client.request("GET", path(id, "/executions"), ExecutionList, { query });
  }
}
