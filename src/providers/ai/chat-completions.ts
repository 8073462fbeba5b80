import { AppError } from "../../core/errors.js";
import { retryAfterMs } from "../../core/retry-after.js";
import { parseJsonAnswer } from "./json-answer.js";
import { RequestSlots } from "./request-slots.js";

/**
 * An OpenAI-compatible Chat Completions client (`POST {base}/chat/completions`): a hosted
 * API or a local Ollama / llama.cpp / vLLM server. Plain fetch rather than the `openai`
 * package: one endpoint, and the retry and time rules below are ours exactly (the package
 * retries on its own schedule and would need them turned off and rebuilt anyway).
 *
 * Request budget of one call (docs/api.md, "AI drafts"): at most 3 attempts on 429, 5xx or
 * a refused connection, waiting Retry-After (seconds or an HTTP date) or 0.5 s then 1 s;
 * plus one re-send without `response_format` when the server answers 400 to it. Every
 * attempt and wait fits in `timeoutMs` from the start of the call: a wait that would not
 * fit ends the call at once. Any failure is a 502 `provider_error`.
 */

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatAnswer {
  /** The message content as the model wrote it. */
  content: string;
  /** Its first JSON object (fences and prose around it dropped), or undefined when there is none. */
  json: Record<string, unknown> | undefined;
  usage: ChatUsage;
  /** The model that answered (the server's name for it, else the one asked for). */
  model: string;
}

export interface ChatCompletionsOptions {
  /** Base URL ending in /v1. */
  url: string;
  key: string | null;
  model: string;
  timeoutMs: number;
  /** Requests in flight at once across every call of this client (OUTREACH_AI_CONCURRENCY; default 4). */
  concurrency?: number;
  /** Log prompts and answers (OUTREACH_AI_DEBUG=1); off, neither is ever logged. */
  debug?: boolean;
  log?: (line: string) => void;
}

const MAX_ATTEMPTS = 3;
const BACKOFF_MS = [500, 1000];

export const providerError = (message: string, cause?: unknown) =>
  new AppError("provider_error", `the AI model failed: ${message}; nothing was saved`, { status: 502, cause });

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", abort, { once: true });
  });
}

/** A short, safe excerpt of an error answer: the server's own message when it sent JSON. */
function errorExcerpt(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    if (typeof message === "string") return message.slice(0, 200);
  } catch {
    // not JSON: the text itself
  }
  return text.replace(/\s+/g, " ").trim().slice(0, 200);
}

export class ChatCompletionsClient {
  /** Cleared once the server refused `response_format` and answered without it. */
  private jsonMode = true;
  private readonly slots: RequestSlots;

  constructor(private readonly options: ChatCompletionsOptions) {
    this.slots = new RequestSlots(options.concurrency ?? 4);
  }

  get model(): string {
    return this.options.model;
  }

  /** One answer asked for as JSON; `signal` is the caller's (a client gone away). */
  async completeJson(messages: ChatMessage[], signal?: AbortSignal): Promise<ChatAnswer> {
    const { timeoutMs, debug, log } = this.options;
    const deadline = AbortSignal.timeout(timeoutMs);
    const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const endsAt = Date.now() + timeoutMs;
    if (debug) log?.(`ai request: ${JSON.stringify(messages)}`);
    let jsonMode = this.jsonMode;
    let triedWithoutFormat = false;
    let attempt = 0;
    for (;;) {
      attempt++;
      let response: Response;
      let text: string;
      try {
        // A slot is held from the request to the end of the answer's body, not during retry waits.
        await this.slots.acquire(stop);
        try {
          response = await this.post(messages, jsonMode, stop);
          text = await response.text();
        } finally {
          this.slots.release();
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        if (deadline.aborted) throw providerError(`no answer within ${timeoutMs} ms (OUTREACH_AI_TIMEOUT_MS)`, err);
        if (attempt >= MAX_ATTEMPTS) throw providerError(`the server at ${this.host()} could not be reached (${(err as Error).message})`, err);
        await this.wait(BACKOFF_MS[attempt - 1]!, endsAt, stop, "could not be reached", signal);
        continue;
      }
      if (response.ok) {
        // The server answered without the field: later calls skip it rather than pay for a 400 each time.
        if (!jsonMode) this.jsonMode = false;
        return this.answer(text, response.status);
      }
      if (response.status === 400 && jsonMode && !triedWithoutFormat) {
        // Servers without JSON mode refuse the field: ask again without it; the prompt asks for JSON too.
        triedWithoutFormat = true;
        jsonMode = false;
        attempt--;
        continue;
      }
      const transient = response.status === 429 || response.status >= 500;
      if (!transient || attempt >= MAX_ATTEMPTS) {
        const tries = transient ? ` after ${attempt} attempts` : "";
        throw providerError(`the server at ${this.host()} answered ${response.status}${tries}: ${errorExcerpt(text)}`);
      }
      const wait = retryAfterMs(response.headers.get("retry-after")) ?? BACKOFF_MS[attempt - 1]!;
      await this.wait(wait, endsAt, stop, `answered ${response.status}`, signal);
    }
  }

  private host(): string {
    return new URL(this.options.url).host;
  }

  private async wait(ms: number, endsAt: number, stop: AbortSignal, why: string, caller?: AbortSignal): Promise<void> {
    if (Date.now() + ms >= endsAt) {
      throw providerError(`the server at ${this.host()} ${why} and asked to wait ${Math.ceil(ms / 1000)} s, beyond the time left of OUTREACH_AI_TIMEOUT_MS`);
    }
    try {
      await sleep(ms, stop);
    } catch (err) {
      // Timer slack can let the deadline fire first: that is still the model's timeout, not an internal error.
      if (caller?.aborted) throw err;
      throw providerError(`no answer within ${this.options.timeoutMs} ms (OUTREACH_AI_TIMEOUT_MS)`, err);
    }
  }

  private post(messages: ChatMessage[], jsonMode: boolean, signal: AbortSignal): Promise<Response> {
    const { url, key, model } = this.options;
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (key) headers.authorization = `Bearer ${key}`;
    const body = { model, messages, temperature: 0.7, ...(jsonMode ? { response_format: { type: "json_object" } } : {}) };
    return fetch(`${url}/chat/completions`, { method: "POST", headers, body: JSON.stringify(body), signal, redirect: "error" });
  }

  private answer(text: string, status: number): ChatAnswer {
    let body: { model?: unknown; choices?: Array<{ message?: { content?: unknown } }>; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch (err) {
      throw providerError(`the server at ${this.host()} answered ${status} with a body that is not a Chat Completions answer`, err);
    }
    const content = body && typeof body === "object" ? body.choices?.[0]?.message?.content : undefined;
    if (typeof content !== "string") throw providerError(`the server at ${this.host()} sent an answer without choices[0].message.content`);
    if (this.options.debug) this.options.log?.(`ai answer: ${content}`);
    const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) ? n : 0);
    return {
      content,
      json: parseJsonAnswer(content),
      usage: { promptTokens: count(body.usage?.prompt_tokens), completionTokens: count(body.usage?.completion_tokens) },
      model: typeof body.model === "string" && body.model ? body.model : this.options.model,
    };
  }
}
