// CommonJS on purpose: piscina loads a worker's file with require(), and Node ≥ 20.19
// require()s an ES module synchronously; a worker terminated while it links that module
// graph (a task given up, the pool destroyed, the process exiting) aborts the whole
// process ("FATAL ERROR: v8::Module::IsGraphAsync"). Requiring this file is plain
// CommonJS, and the ES module is loaded by import(), which a termination ends cleanly.
import workerThreads = require("node:worker_threads");
import url = require("node:url");

type Handler = (task: unknown) => unknown;

const { module: modulePath } = workerThreads.workerData as { module: string };

// Started at once: the module loads while the pool waits for its first task.
const loading: Promise<Handler> = import(url.pathToFileURL(modulePath).href).then((loaded: { default: Handler }) => loaded.default);
// A module that fails to load fails every task (below); not an unhandled rejection meanwhile.
loading.catch(() => {});

/** The handler piscina calls with each task: the ES module's default export, once loaded. */
export = async function runTask(task: unknown): Promise<unknown> {
  return (await loading)(task);
};
