import zlib from "node:zlib";

/** The content codings a fetch undoes (what `accept-encoding` offers). */
export type ContentCoding = "gzip" | "deflate" | "br";

/** The coding a Content-Encoding header names: one we undo, "identity", or undefined when unsupported. */
export function contentCoding(header: string | string[] | undefined): ContentCoding | "identity" | undefined {
  const name = String(header ?? "identity").trim().toLowerCase();
  if (name === "gzip" || name === "x-gzip") return "gzip";
  if (name === "deflate" || name === "br") return name;
  if (name === "identity" || name === "") return "identity";
  return undefined;
}

/** A streaming decoder that tolerates streams which end early (servers that cut off): what decoded is kept. */
export function createDecoder(coding: ContentCoding): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress {
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  if (coding === "gzip") return zlib.createGunzip(flush);
  if (coding === "deflate") return zlib.createInflate(flush);
  return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
}

/**
 * Chunks gathered up to a cap, into one buffer: sized once when the length is known
 * (no chunk list, no concatenation doubling a 2 MiB page), else concatenated at the end.
 */
export class CappedSink {
  private readonly chunks: Buffer[] = [];
  private readonly exact: Buffer | undefined;
  size = 0;
  /** More bytes came than the cap allowed. */
  overflowed = false;

  constructor(
    private readonly maxBytes: number,
    knownLength?: number,
  ) {
    this.exact = knownLength !== undefined && Number.isInteger(knownLength) && knownLength > 0 && knownLength <= maxBytes ? Buffer.allocUnsafeSlow(knownLength) : undefined;
  }

  /** Keeps what fits; true once the sink is full (the caller stops reading). */
  add(chunk: Buffer): boolean {
    const room = (this.exact ? this.exact.length : this.maxBytes) - this.size;
    const take = chunk.length >= room ? chunk.subarray(0, room) : chunk;
    if (this.exact) take.copy(this.exact, this.size);
    else this.chunks.push(take);
    this.size += take.length;
    if (chunk.length > room || (chunk.length === room && !this.exact)) this.overflowed = true;
    return chunk.length >= room;
  }

  bytes(): Uint8Array {
    return this.exact ? this.exact.subarray(0, this.size) : Buffer.concat(this.chunks, this.size);
  }
}

/**
 * A whole encoded body decoded up to `maxBytes`: in the extraction worker, so that a
 * compression bomb inflates there (its buffers in the worker's small heap, its collection
 * there too) and never on the server's event loop. A corrupt or cut stream gives what
 * decoded before the fault; nothing decodable at all is an error.
 */
export function decodeCapped(bytes: Uint8Array, coding: ContentCoding, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const decoder = createDecoder(coding);
    const sink = new CappedSink(maxBytes);
    let settled = false;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      decoder.destroy();
      resolve({ body: sink.bytes(), truncated });
    };
    decoder.on("data", (chunk: Buffer) => {
      if (!settled && sink.add(chunk)) finish(sink.overflowed);
    });
    decoder.once("end", () => finish(false));
    decoder.once("error", (err: Error) => {
      if (sink.size > 0) return finish(true);
      settled = true;
      reject(new Error(`unreadable ${coding} body (${err.message})`));
    });
    decoder.end(bytes);
  });
}
