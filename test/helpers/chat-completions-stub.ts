import { closeAfterEach } from "./close-after-each.js";
import { startChatServer, type ChatStub, type StubResponder } from "./chat-completions-server.js";

export { inOrder, type ChatStub, type RecordedRequest, type StubReply, type StubResponder } from "./chat-completions-server.js";

/** The Chat Completions stub (chat-completions-server.js), closed after the test (its hanging answers too). */
export async function startChatStub(options: { respond?: StubResponder; latencyMs?: number } = {}): Promise<ChatStub> {
  const stub = await startChatServer(options);
  closeAfterEach(stub.server);
  return stub;
}
