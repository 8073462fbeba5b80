import { AppError } from "../../core/errors.js";
import { ChatCompletionsClient } from "../../providers/ai/chat-completions.js";
import type { AiSettings } from "../config.js";

/** The variables an operator sets to turn AI drafts on (docs/self-hosting.md, "AI drafts"). */
export const AI_VARIABLES = "OUTREACH_AI_URL (an OpenAI-compatible base URL ending in /v1, e.g. http://127.0.0.1:11434/v1 for Ollama) and OUTREACH_AI_MODEL (OUTREACH_AI_KEY when the server wants one)";

/**
 * The configured model, built once. Without OUTREACH_AI_URL and OUTREACH_AI_MODEL every AI
 * operation is a 503 `ai_not_configured` naming them: no contact data leaves the server
 * unless the operator chose a model.
 */
export class AiModel {
  private client: ChatCompletionsClient | undefined;

  constructor(
    private readonly settings: AiSettings,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  get concurrency(): number {
    return this.settings.concurrency;
  }

  /** The client, or a 503 naming the variables that are missing. */
  require(): ChatCompletionsClient {
    const { url, model, key, timeoutMs, debug, concurrency } = this.settings;
    if (!url || !model) {
      const missing = [!url && "OUTREACH_AI_URL", !model && "OUTREACH_AI_MODEL"].filter(Boolean).join(" and ");
      throw new AppError("ai_not_configured", `no AI model is configured (${missing} unset): set ${AI_VARIABLES} on the server`);
    }
    this.client ??= new ChatCompletionsClient({ url, key, model, timeoutMs, concurrency, debug, log: this.log });
    return this.client;
  }
}
