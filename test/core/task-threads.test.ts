import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { compiledWorkerFile, TaskThreads } from "../../src/core/task-threads.js";
import { tempDir } from "../helpers/data-dir.js";

/** A worker file that calls the built `serveTasks` with `handler` (JavaScript source). */
function workerWith(handler: string): string {
  const serve = pathToFileURL(compiledWorkerFile("./task-threads.js", new URL("../../src/core/task-threads.ts", import.meta.url).href)).href;
  const file = join(tempDir(), "worker.mjs");
  writeFileSync(file, `import { serveTasks } from ${JSON.stringify(serve)};\nserveTasks(${handler});`);
  return file;
}

/** A worker that doubles numbers into a moved Float64Array, fails or exits when asked. */
const testWorker = () =>
  workerWith(`(task) => {
  if (task.fail) throw Object.assign(new Error("no such thing: " + task.fail), { code: "not_found" });
  if (task.exit) process.exit(task.exit);
  const out = Float64Array.from(task.values, (v) => v * 2);
  return { result: out, transfer: [out.buffer] };
}`);

/** A worker whose handler is asynchronous: answers after `delayMs`, rejects when asked. */
const asyncWorker = () =>
  workerWith(`async (task) => {
  await new Promise((resolve) => setTimeout(resolve, task.delayMs));
  if (task.fail) throw Object.assign(new Error("refused: " + task.fail), { code: "refused" });
  return { result: task.id };
}`);

describe("task threads", () => {
  test("an asynchronous handler holds several tasks at once; each settles with its own answer, and close waits for them", async () => {
    const threads = new TaskThreads<{ id: number; delayMs: number; fail?: string }, number>(asyncWorker(), 1, { what: "test" });
    const order: number[] = [];
    const slow = threads.run({ id: 1, delayMs: 200 }).then((r) => (order.push(r), r));
    const fast = threads.run({ id: 2, delayMs: 1 }).then((r) => (order.push(r), r));
    const failed = expect(threads.run({ id: 3, delayMs: 5, fail: "x" })).rejects.toMatchObject({ message: "refused: x", code: "refused" });
    const closed = threads.close();
    expect(await Promise.all([slow, fast])).toEqual([1, 2]);
    await failed;
    await closed;
    // The fast one was not held behind the slow one.
    expect(order).toEqual([2, 1]);
  });

  test("answers every task with its thread's result, failures with their message and code, and closes after the tasks it holds", async () => {
    const threads = new TaskThreads<{ values?: number[]; fail?: string }, Float64Array>(testWorker(), 2, { what: "test" });
    expect(threads.count).toBe(2);
    const results = Array.from({ length: 6 }, (_, i) => threads.run({ values: [i, i + 0.5] }));
    // Its expectation is attached at once: the failure may arrive while the others are awaited.
    const failed = expect(threads.run({ fail: "x" })).rejects.toMatchObject({ message: "no such thing: x", code: "not_found" });
    const last = threads.run({ values: [7] });
    const closed = threads.close();
    expect(await Promise.all(results)).toEqual(Array.from({ length: 6 }, (_, i) => Float64Array.from([i * 2, i * 2 + 1])));
    await failed;
    expect(await last).toEqual(Float64Array.from([14]));
    await closed;
    await expect(threads.run({ values: [1] })).rejects.toThrow(/closed/);
  });

  test("threads that hold the process only while busy keep it alive until their answer, then let it exit without a close", () => {
    const built = pathToFileURL(compiledWorkerFile("./task-threads.js", new URL("../../src/core/task-threads.ts", import.meta.url).href)).href;
    const script = join(tempDir(), "hold-while-busy.mjs");
    // Nothing else keeps this process's event loop going: only the busy threads can.
    writeFileSync(
      script,
      `import { TaskThreads } from ${JSON.stringify(built)};
const threads = new TaskThreads(${JSON.stringify(asyncWorker())}, 2, { what: "test", holdOnlyWhileBusy: true });
const answers = await Promise.all([threads.run({ id: 1, delayMs: 300 }), threads.run({ id: 2, delayMs: 50 })]);
process.stdout.write("answers " + answers.join(","));
const later = await threads.run({ id: 3, delayMs: 100 });
process.stdout.write(" then " + later);
// No close: idle threads must not hold the process.`,
    );
    const child = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 30_000 });
    expect(child.signal, "the process did not exit by itself").toBeNull();
    expect(child.stderr).toBe("");
    expect(child.stdout).toBe("answers 1,2 then 3");
    expect(child.status).toBe(0);
  });

  test("a thread that dies fails the tasks waiting for it and every later one, naming its exit code", async () => {
    const threads = new TaskThreads<{ values?: number[]; exit?: number }, Float64Array>(testWorker(), 1, { what: "test" });
    const dying = threads.run({ exit: 3 });
    await expect(dying).rejects.toThrow("a test thread stopped (exit code 3)");
    await expect(threads.run({ values: [1] })).rejects.toThrow("a test thread stopped (exit code 3)");
    await threads.close();
  });
});
