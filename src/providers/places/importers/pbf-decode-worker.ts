import { parentPort } from "node:worker_threads";
import { decodePbfTask, transferables, type PbfTask } from "./pbf-decode.js";

/** A decoding thread of the PBF importer (`pbf-decoder-threads.ts`): one block at a time, answered with its sequence number. */
parentPort!.on("message", ({ seq, task, stop }: { seq: number; task: PbfTask; stop?: true }) => {
  // After the tasks sent before it: the thread ends between blocks, never in the middle of
  // inflating one (terminating a thread inside zlib aborts the whole process in Node 20).
  if (stop) return parentPort!.close();
  // The blob arrives as a bare Uint8Array (a Buffer loses its class across threads).
  const result = decodePbfTask({ ...task, blob: Buffer.from(task.blob.buffer, task.blob.byteOffset, task.blob.byteLength) } as PbfTask);
  parentPort!.postMessage({ seq, result }, transferables(result));
});
