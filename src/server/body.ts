import type { z } from "zod";
import { AppError, badRequest } from "../core/errors.js";
import { parseOrThrow } from "../core/validation.js";

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
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new AppError("payload_too_large", `request body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
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
    value = JSON.parse(text);
  } catch {
    throw badRequest("request body is not valid JSON");
  }
  return parseOrThrow(schema, value, "body");
}
