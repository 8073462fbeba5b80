import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/client/api-client.js";
import { eachContact } from "../../src/client/contacts.js";
import { RemoteTransport } from "../../src/client/transports.js";
import { operations } from "../../src/core/contract/index.js";
import { allRoutes } from "../../src/server/routes/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";
import { startTestServer } from "../helpers/server.js";

/** A server on loopback that answers every request with `answer` and records what it got. */
async function fakeServer(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Array<{ method: string; url: string; body: string; accept: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, body, accept: String(req.headers.accept) });
      answer(req, res);
    });
  });
  closeAfterEach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { seen, client: new ApiClient(new RemoteTransport(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), "otr_pat_x") };
}

const ndjson = (...lines: unknown[]) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  res.end(lines.map((l) => JSON.stringify(l) + "\n").join(""));
};

describe("the route table", () => {
  it("binds every operation of the contract to a handler, once", () => {
    expect(allRoutes.map((r) => r.id)).toEqual(operations.map((o) => o.id));
    expect(allRoutes.every((r) => typeof r.handler === "function")).toBe(true);
    expect(new Set(allRoutes.map((r) => `${r.method} ${r.path}`)).size).toBe(allRoutes.length);
  });
});

describe("client.call", () => {
  it("fills path parameters (encoded), sends the query without empty values and the body as JSON, with the operation's method", async () => {
    const { seen, client } = await fakeServer((_req, res) => res.writeHead(200).end(JSON.stringify({ contact: { id: "ct 1/2" } , success: true })));
    await client.call("contacts.add", { body: { email: "ada@example.com", name: "Ada" } });
    await client.call("contacts.list", { query: { page: 2, search: "ada", tags: undefined, status: "" } }).catch(() => {});
    await client.call("contacts.delete", { params: { id: "ct 1/2" } }).catch(() => {});
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /api/v1/contacts/add", "GET /api/v1/contacts?page=2&search=ada", "DELETE /api/v1/contacts/ct%201%2F2"]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ email: "ada@example.com", name: "Ada" });
  });

  it("reports an answer that does not match the response schema, naming where", async () => {
    const { client } = await fakeServer((_req, res) => res.writeHead(200).end(JSON.stringify({ id: 7, name: "Ada" })));
    await expect(client.call("user.me")).rejects.toThrow(/unexpected answer from the server for \/api\/v1\/user\/me \(at id, email\)/);
  });

  it("works end to end against the real app: the answer is the schema's output", async () => {
    const t = createTestInstance();
    const server = await startTestServer(t.services);
    const client = new ApiClient(new RemoteTransport(server.url), t.token);
    const { contact } = await client.call("contacts.add", { body: { email: " Grace@Example.com ", name: "Grace", tags: ["a", "a"] } });
    expect((await client.call("contacts.get", { params: { id: contact.id } })).contact).toMatchObject({ email: "Grace@Example.com", tags: ["a"] });
    const error = await client.call("contacts.get", { params: { id: "x".repeat(65) } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, message: "invalid path: id must be at most 64 characters long" });
  });
});

describe("client.stream", () => {
  const lead = placeLead("1", "https://a.example/");
  const result = { center: { lat: 47, lng: 9 }, leads: [lead], nextPageToken: null };

  it("yields progress lines and the complete line, typed and with their raw text, and asks for NDJSON", async () => {
    const { seen, client } = await fakeServer(ndjson({ type: "progress", data: { leads: [] } }, { type: "complete", data: result }));
    const lines = [];
    for await (const line of client.stream("leads.search", { body: { location: "Vaduz", keywords: "dentist" } })) lines.push(line);
    expect(lines.map((l) => l.type)).toEqual(["progress", "complete"]);
    expect(lines[1]!.data).toEqual(result);
    expect(JSON.parse(lines[1]!.raw)).toEqual({ type: "complete", data: result });
    expect(seen[0]!.accept).toBe("application/x-ndjson");
  });

  it("turns an error line into an ApiError with the status its code stands for, and the line as its body", async () => {
    const line = { type: "error", error: "daily search quota reached", code: "quota_exceeded", quota: { plan: "free" } };
    const { client } = await fakeServer(ndjson({ type: "progress", data: { leads: [] } }, line));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const l of client.stream("leads.search", { body: { location: "Vaduz", keywords: "dentist" } })) seen.push(l.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["progress"]);
    expect(error).toMatchObject({ name: "ApiError", status: 403, code: "quota_exceeded", message: "daily search quota reached", body: line });
  });

  it("refuses a stream that ends without a result, and a line that does not match its schema", async () => {
    const cut = await fakeServer(ndjson({ type: "progress", data: { leads: [] } }));
    const drain = async (client: ApiClient) => {
      for await (const _ of client.stream("leads.enrichmentRetry", { body: { token: "3f1c2b9e-6d0a-4c55-9a7e-2b1f0c8d4e61" } }));
    };
    await expect(drain(cut.client)).rejects.toThrow(/a stream that ended without a result/);
    const odd = await fakeServer(ndjson({ type: "complete", data: { leads: "none" } }));
    await expect(drain(odd.client)).rejects.toThrow(/an unexpected complete line \(at leads\)/);
  });
});

describe("eachContact", () => {
  it("walks the list's pages in order, 100 contacts a page unless a limit is given, keeping the filters", async () => {
    const contact = (n: number) => ({ id: `ct_${n}`, email: `c${n}@x.example`, name: `C${n}`, phone: null, description: null, status: "active", tags: [], timeZone: null, createdAt: "2026-11-22T10:00:00.000Z", updatedAt: "2026-11-22T10:00:00.000Z" });
    const { seen, client } = await fakeServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      const page = Number(url.searchParams.get("page"));
      res.writeHead(200).end(JSON.stringify({ contacts: [contact(page)], total: 2, page, limit: Number(url.searchParams.get("limit")), totalPages: 2 }));
    });
    const ids: string[] = [];
    for await (const c of eachContact(client, { search: "x.example", limit: undefined })) ids.push(c.id);
    expect(ids).toEqual(["ct_1", "ct_2"]);
    expect(seen.map((r) => r.url)).toEqual(["/api/v1/contacts?search=x.example&limit=100&page=1", "/api/v1/contacts?search=x.example&limit=100&page=2"]);
    for await (const _ of eachContact(client, { limit: 7 }));
    expect(seen.slice(2).map((r) => r.url)).toEqual(["/api/v1/contacts?limit=7&page=1", "/api/v1/contacts?limit=7&page=2"]);
  });
});
