import { z } from "zod";
import { badRequest } from "./errors.js";

function fieldName(path: readonly PropertyKey[], root: string): string {
  if (path.length === 0) return root;
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type": {
      // zod 4 leaves the input out of issues; its message ends with what it received.
      const received = /received (\w+)$/.exec(issue.message)?.[1];
      if (received === "undefined") return "is required";
      // A record is a JSON object to whoever sends one.
      const expected =
        issue.expected === "int" ? "an integer" : issue.expected === "array" || issue.expected === "object" || issue.expected === "record" ? `an ${issue.expected === "record" ? "object" : issue.expected}` : `a ${issue.expected}`;
      return `must be ${expected}${received ? ` (got ${received})` : ""}`;
    }
    case "too_small":
      if (issue.origin === "string") return `must be at least ${issue.minimum} character${issue.minimum === 1 ? "" : "s"} long`;
      if (issue.origin === "array") return `must have at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}`;
      return `must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${issue.maximum} characters long`;
      if (issue.origin === "array") return `must have at most ${issue.maximum} items`;
      return `must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
    case "invalid_format":
      return issue.message && !issue.message.startsWith("Invalid") ? issue.message : `must be a valid ${issue.format}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return issue.message;
  }
}

/**
 * One sentence naming every bad field and why: `radiusKm must be at most 100; foo is
 * not a known field`. Unknown fields are reported by name, so a typo is never silent.
 */
export function describeZodError(error: z.ZodError, root = "body"): string {
  const parts: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) parts.push(`${fieldName([...issue.path, key], root)} is not a known field`);
      continue;
    }
    parts.push(`${fieldName(issue.path, root)} ${describeIssue(issue)}`);
  }
  return [...new Set(parts)].join("; ");
}

/** Parse or throw a 400 `invalid_request` whose message names the fields. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root = "body"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(`invalid ${root}: ${describeZodError(result.error, root)}`);
  return result.data;
}
