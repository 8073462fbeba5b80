import { IssuedKeyResponse, KeyList, KeyResponse } from "../core/schemas/team-api-key.js";
import type { ApiClient } from "./api-client.js";

const path = (id: string) => `/api/v1/settings/team-api-keys/${encodeURIComponent(id)}`;

export class TeamApiKeysApi {
  constructor(private readonly client: ApiClient) {}

  list() {
    return this.client.request("GET", "/api/v1/settings/team-api-keys", KeyList);
  }

  create(body: { name: string; scopes: string[]; expiresAt?: string }) {
    return this.client.request("POST", "/api/v1/settings/team-api-keys", IssuedKeyResponse, { body });
  }

  rotate(id: string) {
    return this.client.request("POST", path(id), IssuedKeyResponse);
  }

  revoke(id: string) {
    return this.client.request("DELETE", path(id), KeyResponse);
  }
}
