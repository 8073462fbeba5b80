/**
 * Models asked for JSON do not always answer with JSON alone: some wrap it in a ```json
 * fence, some put a sentence before it. The first balanced `{…}` of the answer is taken
 * (strings and escapes respected), parsed, and must be an object; otherwise undefined.
 */
export function parseJsonAnswer(text: string): Record<string, unknown> | undefined {
  const unfenced = text.replace(/```(?:json)?\s*([\s\S]*?)```/i, "$1");
  for (const candidate of [unfenced, text]) {
    const object = firstBalancedObject(candidate);
    if (object === undefined) continue;
    try {
      const value: unknown = JSON.parse(object);
      if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // a brace-balanced span that is not JSON: try the other candidate
    }
  }
  return undefined;
}

/** The text from the first `{` to the brace that closes it, or undefined when none closes. */
function firstBalancedObject(text: string): string | undefined {
  const start = text.indexOf("{");
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}
