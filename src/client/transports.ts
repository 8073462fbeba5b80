/**
 * How the API client reaches a server: over HTTP to a base URL, or in-process to the
 * same h3 app on the local data directory. Both take a standard Request and return a
 * standard Response, so the client cannot tell them apart.
 */
export interface Transport {
  /** For messages: the URL or data directory this transport talks to. */
  readonly target: string;
  send(request: Request): Promise<Response>;
}

/** A failure to reach the server at all (as opposed to an HTTP error answer). */
export class TransportError extends Error {
  override name = "TransportError";
}

export const API_ORIGIN_FOR_LOCAL = "http://outreach.local";

export class RemoteTransport implements Transport {
  readonly target: string;

  constructor(
    baseUrl: string,
    private readonly timeoutMs = 120_000,
  ) {
    this.target = baseUrl.replace(/\/+$/, "");
  }

  /** Resolve an API path against the base URL (which may itself carry a path prefix). */
  url(path: string): string {
    return this.target + path;
  }

  async send(request: Request): Promise<Response> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    try {
      return await fetch(new Request(request, { signal }));
    } catch (err) {
      if (request.signal?.aborted) throw err;
      if (timeout.aborted) throw new TransportError(`no answer from ${this.target} within ${Math.round(this.timeoutMs / 1000)} s`);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.code === "ECONNREFUSED") {
        throw new TransportError(`could not connect to ${this.target}: connection refused (is \`outreach serve\` running there?)`);
      }
      if (cause?.code === "ENOTFOUND" || cause?.code === "EAI_AGAIN") {
        throw new TransportError(`could not resolve the host of ${this.target}`);
      }
      throw new TransportError(`could not reach ${this.target}: ${cause?.message ?? (err as Error).message}`);
    }
  }
}

export class LocalTransport implements Transport {
  constructor(
    readonly target: string,
    private readonly handler: (request: Request) => Promise<Response>,
  ) {}

  send(request: Request): Promise<Response> {
    return this.handler(request);
  }
}
