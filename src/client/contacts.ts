import type { Contact } from "../core/schemas/contact.js";
import type { ApiClient, CallInput } from "./api-client.js";

type ListQuery = NonNullable<CallInput<"contacts.list">["query"]>;

/** Every contact the list filters match, page after page in the list's order (newest first). */
export async function* eachContact(client: ApiClient, query: Omit<ListQuery, "page"> = {}, signal?: AbortSignal): AsyncGenerator<Contact> {
  for (let page = 1; ; page++) {
    const result = await client.call("contacts.list", { query: { ...query, limit: query.limit ?? 100, page }, signal });
    yield* result.contacts;
    if (page >= result.totalPages) return;
  }
}
