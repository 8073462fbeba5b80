import { serveTasks } from "../../../core/task-threads.js";
import { chunkTransferables, parseLeadChunk, type LeadChunkFailure, type LeadChunkResult, type LeadChunkTask } from "./lead-rows.js";

/**
 * A parsing thread of a list import (`LeadRowsImporter.readBatches`): one chunk of whole
 * lines at a time, parsed (JSON or CSV), each row cleaned into a place or a skip naming its
 * line and field, answered in the compact form of `import-item-codec.ts`.
 */
serveTasks<LeadChunkTask, LeadChunkResult | LeadChunkFailure>((task) => {
  const result = parseLeadChunk(task);
  return { result, transfer: chunkTransferables(result) };
});
