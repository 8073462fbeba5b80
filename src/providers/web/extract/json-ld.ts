/** Every JSON-LD object of a page's `application/ld+json` scripts (graphs and arrays flattened); broken blocks skipped. */
export function jsonLdNodes(scripts: readonly string[]): Array<Record<string, unknown>> {
  const nodes: Array<Record<string, unknown>> = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 8 || value === null || typeof value !== "object" || nodes.length > 2000) return;
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
    const record = value as Record<string, unknown>;
    nodes.push(record);
    for (const child of Object.values(record)) if (child && typeof child === "object") visit(child, depth + 1);
  };
  for (const script of scripts) {
    try {
      // Some generators wrap the JSON in an HTML comment or CDATA.
      visit(JSON.parse(script.trim().replace(/^(?:<!--|\/\*<!\[CDATA\[\*\/)|(?:-->|\/\*\]\]>\*\/)$/g, "")), 0);
    } catch {
      // invalid JSON-LD is common; the rest of the page still counts
    }
  }
  return nodes;
}

/** String values of a JSON-LD property that may be a string, an object with `@id`/`url`, or an array of those. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap((v) => stringsOf(v));
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const inner = record["@id"] ?? record.url;
    return typeof inner === "string" ? [inner] : [];
  }
  return [];
}

/** The `@type` of a node as a list of lower-case names. */
export function typesOf(node: Record<string, unknown>): string[] {
  return stringsOf(node["@type"]).map((t) => t.toLowerCase());
}
