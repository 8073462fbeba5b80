import { SuccessBody } from "../core/schemas/common.js";
import {
  AddContactResponse,
  ContactImportResponse,
  ContactList,
  ContactResponse,
  type Contact,
} from "../core/schemas/contact.js";
import type { ApiClient } from "./api-client.js";

export interface ContactListParams {
  page?: number;
  limit?: number;
  search?: string;
  tags?: readonly string[];
  status?: readonly string[];
}

export interface NewContact {
  email: string;
  name: string;
  phone?: string | null;
  description?: string | null;
  tags?: string[];
  status?: "active" | "unsubscribed";
}

/** Typed calls of endpoints 9–13 and the import addition. */
export class ContactsApi {
  constructor(private readonly client: ApiClient) {}

  add(contact: NewContact, signal?: AbortSignal) {
    return this.client.request("POST", "/api/v1/contacts/add", AddContactResponse, { body: contact, signal });
  }

  import(contacts: readonly unknown[], tags: readonly string[] = [], signal?: AbortSignal) {
    return this.client.request("POST", "/api/v1/contacts/import", ContactImportResponse, {
      body: tags.length ? { contacts, tags } : { contacts },
      signal,
    });
  }

  list(params: ContactListParams = {}, signal?: AbortSignal) {
    return this.client.request("GET", "/api/v1/contacts", ContactList, {
      query: {
        page: params.page,
        limit: params.limit,
        search: params.search,
        tags: params.tags?.length ? params.tags.join(",") : undefined,
        status: params.status?.length ? params.status.join(",") : undefined,
      },
      signal,
    });
  }

  /** Every page of a list, in order. */
  async *listAll(params: Omit<ContactListParams, "page"> = {}, signal?: AbortSignal): AsyncGenerator<Contact> {
    for (let page = 1; ; page++) {
      const result = await this.list({ ...params, page, limit: params.limit ?? 100 }, signal);
      yield* result.contacts;
      if (page >= result.totalPages) return;
    }
  }

  get(id: string, signal?: AbortSignal) {
    return this.client.request("GET", `/api/v1/contacts/${encodeURIComponent(id)}`, ContactResponse, { signal });
  }

  update(id: string, change: Partial<Omit<NewContact, "status">>, signal?: AbortSignal) {
    return this.client.request("PATCH", `/api/v1/contacts/${encodeURIComponent(id)}`, ContactResponse, { body: change, signal });
  }

  remove(id: string, signal?: AbortSignal) {
    return this.client.request("DELETE", `/api/v1/contacts/${encodeURIComponent(id)}`, SuccessBody, { signal });
  }
}

