import { createTestInstance, type TestInstance } from "./instance.js";
import { startChatStub, type ChatStub, type StubResponder } from "./chat-completions-stub.js";
import { startTestServer, type TestServer } from "./server.js";

export interface AiSetup {
  instance: TestInstance;
  server: TestServer;
  stub: ChatStub;
  post(path: string, json: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, any> }>;
  get(path: string): Promise<{ status: number; body: Record<string, any> }>;
  healthy(): Promise<boolean>;
}

/** A server whose AI model is the Chat Completions stub, a brand with a style guide, and the stub's settings in `env`. */
export async function aiSetup(options: { respond?: StubResponder; env?: Record<string, string>; latencyMs?: number } = {}): Promise<AiSetup> {
  const stub = await startChatStub({ respond: options.respond, latencyMs: options.latencyMs });
  const instance = createTestInstance({ env: stub.env(options.env) });
  const principal = instance.services.auth.authenticate(`Bearer ${instance.token}`);
  instance.services.brand.update(principal, {
    brandName: "Crumb & Co",
    brandDescription: "A family bakery that delivers fresh bread to cafés.",
    websiteUrl: "https://crumb.example",
    emailLanguage: "de",
    brandDesignSystem: { voice: { tone: "warm, plain, no exclamation marks" } },
  });
  const server = await startTestServer(instance.services);
  const token = instance.token;
  return {
    instance,
    server,
    stub,
    async post(path, json, headers = {}) {
      const res = await server.request(path, { method: "POST", token, json, headers });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    },
    async get(path) {
      const res = await server.request(path, { token });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    },
    async healthy() {
      return (await server.request("/healthz")).status === 200;
    },
  };
}
