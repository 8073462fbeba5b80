/**
 * A strict JSON reader for request bodies: RFC 8259 JSON exactly as `JSON.parse` reads
 * it, in one linear pass, except that it refuses
 * - an object with the same key twice (`{"teamId":"x","teamId":"y"}`): `JSON.parse`
 *   keeps the last one, while a proxy or firewall in front of us may have checked the
 *   first, so the two would act on different values;
 * - nesting deeper than `maxDepth`: no body of ours needs more than a few levels, and
 *   deeper values only make later recursive code (validation, serialisation) run out of
 *   stack.
 * Errors name where: the field path (`brandDesignSystem.colors[2]`) for duplicates and
 * depth, line and column for syntax.
 */

/** Deepest nesting any request body may have (the deepest schema, brandDesignSystem, allows 9). */
export const MAX_JSON_DEPTH = 32;

export class StrictJsonError extends Error {
  override name = "StrictJsonError";
  constructor(
    message: string,
    /** The field path the error is about (`""` for the whole body or a syntax error). */
    readonly field: string,
  ) {
    super(message);
  }
}

/** Characters a string may hold as they are (the sticky match always succeeds, maybe empty). */
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
/** Longest field path quoted in a message. */
const MAX_SHOWN_PATH = 120;

type PathPart = string | number;

function showPath(path: readonly PathPart[]): string {
  let shown = "";
  for (const [i, part] of path.entries()) {
    shown += typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`;
    if (shown.length > MAX_SHOWN_PATH) return shown.slice(0, MAX_SHOWN_PATH) + "…";
  }
  return shown;
}

class Reader {
  private i = 0;
  private readonly path: PathPart[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  read(): unknown {
    this.skipSpace();
    const value = this.value(0);
    this.skipSpace();
    if (this.i < this.text.length) this.fail("unexpected data after the JSON value");
    return value;
  }

  private value(depth: number): unknown {
    const c = this.text.charCodeAt(this.i);
    if (c === 0x7b /* { */) return this.object(depth + 1);
    if (c === 0x5b /* [ */) return this.array(depth + 1);
    if (c === 0x22 /* " */) return this.string();
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.text.startsWith("true", this.i)) return this.literal(4, true);
    if (this.text.startsWith("false", this.i)) return this.literal(5, false);
    if (this.text.startsWith("null", this.i)) return this.literal(4, null);
    return this.fail(`unexpected ${this.shownChar()}`);
  }

  private object(depth: number): Record<string, unknown> {
    this.enter(depth);
    const out: Record<string, unknown> = {};
    this.i++;
    this.skipSpace();
    if (this.text.charCodeAt(this.i) === 0x7d /* } */) {
      this.i++;
      return out;
    }
    for (;;) {
      if (this.text.charCodeAt(this.i) !== 0x22) this.fail(`expected a quoted key, found ${this.shownChar()}`);
      const key = this.string();
      this.path.push(key);
      if (Object.hasOwn(out, key)) {
        throw new StrictJsonError(`${showPath(this.path)} appears more than once (duplicate keys are refused)`, showPath(this.path));
      }
      this.skipSpace();
      this.expect(0x3a /* : */, "':'");
      this.skipSpace();
      const value = this.value(depth);
      // As JSON.parse does: "__proto__" is an ordinary own key, never the prototype.
      if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      this.path.pop();
      this.skipSpace();
      const c = this.text.charCodeAt(this.i++);
      if (c === 0x7d /* } */) return out;
      if (c !== 0x2c /* , */) this.fail(`expected ',' or '}'`, this.i - 1);
      this.skipSpace();
    }
  }

  private array(depth: number): unknown[] {
    this.enter(depth);
    const out: unknown[] = [];
    this.i++;
    this.skipSpace();
    if (this.text.charCodeAt(this.i) === 0x5d /* ] */) {
      this.i++;
      return out;
    }
    for (;;) {
      this.path.push(out.length);
      out.push(this.value(depth));
      this.path.pop();
      this.skipSpace();
      const c = this.text.charCodeAt(this.i++);
      if (c === 0x5d /* ] */) return out;
      if (c !== 0x2c /* , */) this.fail(`expected ',' or ']'`, this.i - 1);
      this.skipSpace();
    }
  }

  private enter(depth: number): void {
    if (depth <= this.maxDepth) return;
    const where = this.path.length ? showPath(this.path) : "body";
    throw new StrictJsonError(`${where} is nested more than ${this.maxDepth} levels deep`, where);
  }

  /** A string starting at the opening quote; escapes decoded, control characters refused. */
  private string(): string {
    const text = this.text;
    let out = "";
    this.i++;
    for (;;) {
      PLAIN_RUN.lastIndex = this.i;
      PLAIN_RUN.test(text);
      out += text.slice(this.i, PLAIN_RUN.lastIndex);
      this.i = PLAIN_RUN.lastIndex;
      const c = text.charCodeAt(this.i);
      if (c === 0x22 /* " */) {
        this.i++;
        return out;
      }
      if (c === 0x5c /* \ */) out += this.escape();
      else this.fail("control character in string (escape it)"); // or the end of the text
    }
  }

  private escape(): string {
    const e = this.text[this.i + 1];
    if (e === "u") {
      const hex = this.text.slice(this.i + 2, this.i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("bad \\u escape in string");
      this.i += 6;
      return String.fromCharCode(parseInt(hex, 16));
    }
    const decoded = e === undefined ? undefined : ESCAPES[e];
    if (decoded === undefined) this.fail("bad escape in string");
    this.i += 2;
    return decoded!;
  }

  private number(): number {
    NUMBER.lastIndex = this.i;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail("bad number");
    this.i += match![0].length;
    return Number(match![0]);
  }

  private literal<T>(length: number, value: T): T {
    this.i += length;
    return value;
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  private expect(code: number, what: string): void {
    if (this.text.charCodeAt(this.i) !== code) this.fail(`expected ${what}`);
    this.i++;
  }

  private shownChar(at = this.i): string {
    return JSON.stringify(this.text[at] ?? "");
  }

  private fail(what: string, at = this.i): never {
    let line = 1;
    let lineStart = 0;
    for (let j = 0; j < at && j < this.text.length; j++) {
      if (this.text.charCodeAt(j) === 0x0a) {
        line++;
        lineStart = j + 1;
      }
    }
    const message = at >= this.text.length ? "unexpected end of input" : what;
    throw new StrictJsonError(`${message} at line ${line} column ${at - lineStart + 1}`, "");
  }
}

/** Parse `text` as strict JSON (see above); throws `StrictJsonError`. */
export function parseStrictJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  return new Reader(text, maxDepth).read();
}
