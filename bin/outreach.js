#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/ (built by `npm run build`, run by `npm ci` through `prepare`).
import { main } from "../dist/cli/main.js";

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`outreach: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
