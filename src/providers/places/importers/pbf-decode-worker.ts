import { parentPort } from "node:worker_threads";
import { decodePbfTask, transferables, type PbfTask } from "./pbf-decode.js";

/** A decoding thread of the PBF importer (`pbf-decoder-threads.ts`): one block at a time, answered with its sequence number. */
parentPort!.on("message", ({ seq, task }: { seq: number; task: PbfTask }) => {
  // The blob arrives as a bare Uint8Array (a Buffer loses its class across threads).
  const result = decodePbfTask({ ...task, blob: Buffer.from(task.blob.buffer, task.blob.byteOffset, task.blob.byteLength) } as PbfTask);
  parentPort!.postMessage({ seq, result }, transferables(result));
});
