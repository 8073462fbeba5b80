/**
 * The environment as the CLI reads it: an `OUTREACH_*` variable that is empty (or only
 * blanks) counts as unset, so `OUTREACH_TOKEN= outreach whoami` in a script that clears
 * a variable behaves as if it were not there, instead of sending an empty token.
 */
export function effectiveEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith("OUTREACH_") && (value === undefined || value.trim() === "")) continue;
    out[name] = value;
  }
  return out;
}

/** A global flag given empty (`--token ""`) counts as not given, like an empty variable. */
export function givenOrUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
