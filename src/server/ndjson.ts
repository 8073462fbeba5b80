import type { StreamLine } from "../core/contract/index.js";
import { AppError, isAppError } from "../core/errors.js";
import { API_HEADERS, type Logger } from "./errors.js";
import { ndjsonLines } from "./ndjson-line.js";

export function errorLine(err: unknown, log: Logger, extra: Record<string, unknown> = {}): StreamLine {
  if (!isAppError(err)) log(`internal error in stream: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  const e = isAppError(err) ? err : new AppError("internal_error", "internal error");
  return { type: "error", error: e.message, code: e.code, ...extra, ...e.body } as StreamLine;
}

/**
 * Stream `source` as NDJSON. Headers go out at once; a line is flushed as soon as it is
 * produced. An exception after the first byte cannot change the status, so it ends the
 * stream with an `error` line; a source that stops without a terminal line gets one too,
 * so every stream ends with exactly one `complete` or `error`. When the client goes away
 * the source's `return()` runs, which lets the producer stop its work; an error the source
 * throws once `signal` (the request's) has aborted is that departure, not a fault: no log.
 */
export function ndjsonResponse(
  source: AsyncIterable<StreamLine>,
  options: { log: Logger; errorExtra?: () => Record<string, unknown>; signal?: AbortSignal },
): Response {
  const encoder = new TextEncoder();
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  const lines = ndjsonLines();
  const encode = (line: StreamLine) => encoder.encode(lines(line));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      try {
        const { value, done } = await iterator.next();
        if (done) {
          finished = true;
          controller.enqueue(encode(errorLine(new AppError("internal_error", "stream ended without a result"), options.log)));
          controller.close();
          return;
        }
        controller.enqueue(encode(value));
        if (value.type !== "progress") {
          finished = true;
          await iterator.return?.();
          controller.close();
        }
      } catch (err) {
        finished = true;
        // The client went away (its request's signal): the source stopped because of it,
        // nobody reads an error line, and the request's log line already says so.
        if (options.signal?.aborted) return controller.close();
        let extra: Record<string, unknown> = {};
        try {
          extra = options.errorExtra?.() ?? {};
        } catch {
          // best effort
        }
        controller.enqueue(encode(errorLine(err, options.log, extra)));
        controller.close();
      }
    },
    async cancel() {
      finished = true;
      await iterator.return?.();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "application/x-ndjson; charset=utf-8", ...API_HEADERS, "x-accel-buffering": "no" },
  });
}
