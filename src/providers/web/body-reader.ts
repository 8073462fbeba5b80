import type { IncomingMessage } from "node:http";
import { CappedSink, contentCoding, createDecoder, type ContentCoding } from "./content-coding.js";
import { FetchError, watchPhase } from "./fetch-errors.js";

export interface BodyLimits {
  /** Bytes kept: decoded bytes, or with `keepEncoded` the bytes as sent. */
  maxBytes: number;
  /** Time the body may take once the headers came. */
  timeoutMs: number;
  /**
   * Leave a gzip/deflate/br body encoded: the extraction worker decodes it (content-coding.ts),
   * so that a compression bomb never inflates on the event loop.
   */
  keepEncoded?: boolean;
}

export interface ReadBody {
  body: Uint8Array;
  /** The cap cut the body (or it ended early and its prefix was kept). */
  truncated: boolean;
  /** Set when the body is still encoded (only with `keepEncoded`). */
  coding?: ContentCoding;
}

/**
 * A response's body, decoded (gzip, deflate, brotli) and counted while it streams:
 * decompression stops at `maxBytes`, not after, so a 256 KB gzip bomb costs 2 MiB of
 * inflating and no more. A body cut off mid-way still gives its decoded prefix (`truncated`).
 */
export function readBody(url: URL, response: IncomingMessage, signal: AbortSignal, limits: BodyLimits): Promise<ReadBody> {
  const coding = contentCoding(response.headers["content-encoding"]);
  if (coding === undefined) return Promise.reject(new FetchError("not_text", `${url.href} uses the unsupported content encoding ${String(response.headers["content-encoding"])}`));
  const decodeHere = coding !== "identity" && !limits.keepEncoded;
  const decoded: NodeJS.ReadableStream & { destroy(): void } = decodeHere ? response.pipe(createDecoder(coding)) : response;
  // The length a server declares is the length of the bytes as sent.
  const sink = new CappedSink(limits.maxBytes, decodeHere ? undefined : Number(response.headers["content-length"]));
  return new Promise((resolve, reject) => {
    let settled = false;
    const stopWatching = watchPhase(signal, limits.timeoutMs, () => new FetchError("timeout", `${url.host} did not finish the body within ${limits.timeoutMs} ms`), (err) => fail(err));
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      stopWatching();
      decoded.destroy();
      response.destroy();
      return true;
    };
    const finish = (truncated: boolean) => {
      if (settle()) resolve({ body: sink.bytes(), truncated, ...(coding !== "identity" && !decodeHere ? { coding } : {}) });
    };
    const fail = (err: Error) => {
      if (settle()) reject(err);
    };
    decoded.on("data", (chunk: Buffer) => {
      if (!settled && sink.add(chunk)) finish(sink.overflowed);
    });
    decoded.once("end", () => finish(false));
    decoded.once("error", (err: Error) => {
      // A body cut off mid-way still gives us its decoded prefix.
      if (sink.size > 0) return finish(true);
      fail(new FetchError("network", `${url.host}: unreadable body (${err.message})`));
    });
    response.once("aborted", () => (sink.size > 0 ? finish(true) : fail(new FetchError("network", `${url.host} closed the connection`))));
  });
}
