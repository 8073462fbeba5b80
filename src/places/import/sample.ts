import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The bundled sample extract's file name (docs/data.md, "Bundled sample"). */
export const SAMPLE_FILE_NAME = "monaco-2026-07-10.osm.pbf";
/** Where the sample is, in words, for messages. */
export const SAMPLE_DESCRIPTION = "Monaco (OpenStreetMap, 2026-07-10, © OpenStreetMap contributors, ODbL 1.0)";

/**
 * The path of the bundled Monaco extract. It ships in the package under `src/` (listed in
 * package.json `files`), so the compiled module in `dist/` finds it there rather than
 * having the build copy a binary file.
 */
export function samplePath(): string {
  const candidates = [
    new URL(`./sample/${SAMPLE_FILE_NAME}`, import.meta.url),
    new URL(`../../../src/places/import/sample/${SAMPLE_FILE_NAME}`, import.meta.url),
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`the bundled sample ${SAMPLE_FILE_NAME} is missing from the package (looked in ${candidates.join(", ")})`);
  return found;
}
