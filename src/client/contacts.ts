import type { Contact } from "../core/schemas/contact.js";
import type { ApiClient, CallInput } from "./api-client.js";

type ListQuery = NonNullable<CallInput<"contacts.list">["query"]>;

/**
 * Every contact the list filters match, page after page in the list's order (newest first).
 * `onPage` hears each page's totals (for progress).
 */
export async function* eachContact(
  client: ApiClient,
  query: Omit<ListQuery, "page"> = {},
  signal?: AbortSignal,
  onPage?: (page: { total: number; totalPages: number }) => void,
): AsyncGenerator<Contact> {
  for (let page = 1; ; page++) {
    // In-process (local mode) a page is answered without I/O: a turn of the event loop lets a Ctrl-C be heard.
    if (page > 1) await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    const result = await client.call("contacts.list", { query: { ...query, limit: query.limit ?? 100, page }, signal });
    onPage?.(result);
    yield* result.contacts;
    if (page >= result.totalPages) return;
  }
}
