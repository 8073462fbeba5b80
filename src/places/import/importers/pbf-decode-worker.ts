import { serveTasks } from "../../../core/task-threads.js";
import { decodePbfTask, transferables, type PbfFailure, type PbfResult, type PbfTask } from "./pbf-decode.js";

/**
 * A decoding thread of the PBF importer (`pbf-decoder-threads.ts`): one block at a time.
 * A block that cannot be decoded is answered with its failure (`PbfFailure`, which keeps an
 * AppError's code). `close` ends the thread between blocks, never in the middle of
 * inflating one (terminating a thread inside zlib aborts the whole process in Node 20).
 */
serveTasks<PbfTask, PbfResult | PbfFailure>((task) => {
  // The blob arrives as a bare Uint8Array (a Buffer loses its class across threads).
  const result = decodePbfTask({ ...task, blob: Buffer.from(task.blob.buffer, task.blob.byteOffset, task.blob.byteLength) });
  return { result, transfer: transferables(result) };
});
