#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/ (built by `npm run build`, run by `npm ci` through `prepare`).

// Ctrl-C while the CLI is still loading (a second or more on a busy machine): the same one
// line and exit 130 as once it runs (src/cli/interrupt.ts); nothing has started yet.
const interruptedWhileLoading = () => {
  process.stderr.write("interrupted\n");
  process.exit(130);
};
process.once("SIGINT", interruptedWhileLoading);
const { main } = await import("../dist/cli/main.js");

// main() installs its own SIGINT handler before its first await; only then does the loading
// one go. Removing the last listener stops Node's signal watcher, and a Ctrl-C that arrived
// while the modules were evaluated (still unread by the event loop) would be dropped with it:
// the command then ran to its end and exited 0.
const running = main();
process.off("SIGINT", interruptedWhileLoading);
running.then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`outreach: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
