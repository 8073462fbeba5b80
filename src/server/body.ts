import type { z } from "zod";
import { AppError, badRequest } from "../core/errors.js";
import { parseOrThrow } from "../core/validation.js";
import { parseStrictJson, StrictJsonError } from "./strict-json.js";

/** Request bodies above this are refused with 413 before they are read to the end. */
export const MAX_BODY_BYTES = 1024 * 1024;

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    throw new AppError("payload_too_large", `request body is larger than ${limit} bytes`);
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch {
      // The client went away (or broke the framing) mid-body: its fault, not ours, and
      // nobody is left to read the answer.
      throw badRequest("the request body ended before it was complete");
    }
    const { done, value } = next;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new AppError("payload_too_large", `request body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  try {
    // Fatal: a lossy decoding would silently store U+FFFD instead of what was sent.
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw badRequest("request body is not valid UTF-8");
  }
}

/** Read, size-check, parse and validate a JSON body; every failure names what is wrong. */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const text = await readLimited(request, MAX_BODY_BYTES);
  if (text.trim() === "") return parseOrThrow(schema, undefined, "body");
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new AppError("unsupported_media_type", "request body must be JSON, sent with Content-Type: application/json");
  }
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (err) {
    if (!(err instanceof StrictJsonError)) throw err;
    throw badRequest(err.field ? `invalid body: ${err.message}` : `request body is not valid JSON: ${err.message}`);
  }
  return parseOrThrow(schema, value, "body");
}
