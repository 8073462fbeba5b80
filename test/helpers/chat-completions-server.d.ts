import type { IncomingHttpHeaders, Server } from "node:http";

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    response_format?: { type: string };
    stream?: boolean;
    [key: string]: unknown;
  };
}

export type StubReply =
  /** Content: a string as is, anything else as its JSON text. */
  | { content: unknown; latencyMs?: number }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers (until the client gives up). */
  | { hang: true };

export type StubResponder = (request: RecordedRequest, index: number) => StubReply;

export interface ChatStub {
  server: Server;
  /** Base URL ending in /v1, as OUTREACH_AI_URL. */
  url: string;
  requests: RecordedRequest[];
  maxInFlight: number;
  /** Replace how the next requests are answered. */
  respond(responder: StubResponder): void;
  /** The environment of a server using this stub. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export function inOrder(...replies: StubReply[]): StubResponder;
export function startChatServer(options?: { respond?: StubResponder; latencyMs?: number }): Promise<ChatStub>;
