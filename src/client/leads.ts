import { SearchResult, type SearchInput } from "../core/schemas/lead.js";
import { ApiError, type ApiClient, type StreamLine } from "./api-client.js";

/** HTTP status of each `code` an NDJSON error line may carry (decisions.md), so stream errors map to exit codes like HTTP ones. */
const STATUS_OF_CODE: Record<string, number> = {
  invalid_request: 400,
  unauthorized: 401,
  quota_exceeded: 403,
  contact_limit_reached: 403,
  rate_limited: 429,
  provider_error: 500,
  internal_error: 500,
};

/** One page of a streamed search: its progress snapshots as they come, then the final result. */
export interface StreamedPage {
  lines: AsyncGenerator<{ raw: StreamLine; result?: SearchResult }>;
}

/** Typed client of endpoint 1 (lead search) */
export class LeadsApi {
  constructor(private readonly client: ApiClient) {}

  /** One page as JSON. */
  search(input: SearchInput, signal?: AbortSignal): Promise<SearchResult> {
    return this.client.request("POST", "/api/v1/map-leads/search", SearchResult, { body: input, signal });
  }

  /**
   * One page as an NDJSON stream: yields every line as it arrives; the `complete` line's
   * result is validated and returned as `result`; an `error` line throws an ApiError with
   * the status its code stands for.
   */
  async *searchStream(input: SearchInput, signal?: AbortSignal): AsyncGenerator<{ raw: StreamLine; result?: SearchResult }> {
    let terminal = false;
    for await (const line of this.client.stream("POST", "/api/v1/map-leads/search", { body: input, signal })) {
      if (line.type === "error") {
        terminal = true;
        yield { raw: line };
        const status = STATUS_OF_CODE[line.code ?? ""] ?? 500;
        throw new ApiError(status, line.error, line.code, line as unknown as Record<string, unknown>, new Headers());
      }
      if (line.type === "complete") {
        terminal = true;
        const parsed = SearchResult.safeParse(line.data);
        if (!parsed.success) throw new ApiError(200, "the server's final search result does not match the Search result schema", undefined, {}, new Headers());
        yield { raw: line, result: parsed.data };
        return;
      }
      yield { raw: line };
    }
    if (!terminal) throw new ApiError(200, "the search stream ended without a result", undefined, {}, new Headers());
  }
}
