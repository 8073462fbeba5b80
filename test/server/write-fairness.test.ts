import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

/**
 * Reads must not wait behind writes that arrived just before them, nor writes behind reads. The server runs in
 * this process: the test holds the event loop while it writes requests to several
 * connections, so the server finds all of them waiting at once when the loop is
 * released, in the order they were sent, and the order of the answers shows who went first.
 */

function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy on purpose: nothing else in this process may run meanwhile.
  }
}

/**
 * Keep-alive connections the server has already accepted and served once: Node accepts
 * one new connection per turn of the event loop, so fresh connections would reach the
 * server one at a time whatever the test does.
 */
async function openConnections(port: number, count: number): Promise<Socket[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
        let seen = "";
        const onData = (d: Buffer) => {
          seen += d;
          // The whole answer: its body, unframed or as the last chunk.
          if (!seen.includes('{"status":"ok"}') || !(seen.endsWith("}") || seen.endsWith("\r\n0\r\n\r\n"))) return;
          socket.off("data", onData);
          resolve(socket);
        };
        socket.on("data", onData);
        socket.once("error", reject);
      }),
    ),
  );
}

function post(path: string, token: string, body: unknown): string {
  const text = JSON.stringify(body);
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

const get = (path: string, token: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;

/** Labels in the order their answers' first bytes arrived, with each answer's status. */
function answerOrder(sockets: Map<string, Socket>): Promise<Array<{ label: string; status: number }>> {
  const order: Array<{ label: string; status: number }> = [];
  return Promise.all(
    [...sockets].map(
      ([label, socket]) =>
        new Promise<void>((resolve) => {
          let text = "";
          socket.on("data", (d) => {
            if (text === "") order.push({ label, status: 0 });
            text += d;
          });
          socket.on("close", () => {
            order.find((o) => o.label === label)!.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
            resolve();
          });
        }),
    ),
  ).then(() => order);
}

async function twoWorkspaces() {
  const t = createTestInstance();
  const writer = t.services.identity.bootstrap({ name: "Bob", email: "bob@example.com", team: "Bobco", plan: "self-hosted" });
  await t.services.contacts.addMany(t.teamId, Array.from({ length: 30 }, (_, i) => ({ email: `r${i}@readers.example`, name: `R ${i}` })));
  const server = await startTestServer(t.services);
  return { t, writer, server, port: Number(new URL(server.url).port) };
}

/**
 * A crowd of requests of one kind, then (once they are all in the server's socket buffers)
 * one late request of the other kind, each on its own connection: the answers' order.
 */
async function crowdThenLate(port: number, crowd: Array<[label: string, request: string]>, late: [label: string, request: string]) {
  const sockets = await openConnections(port, crowd.length + 1);
  const answers = answerOrder(new Map([...crowd, late].map(([label], i) => [label, sockets[i]!])));
  crowd.forEach(([, request], i) => sockets[i]!.write(request));
  holdEventLoop(30);
  sockets[crowd.length]!.write(late[1]);
  holdEventLoop(30);
  return answers;
}

describe("reads are not queued behind writes", () => {
  it("a contact list that arrives after eight queued contact adds is answered before most of them", async () => {
    const { t, writer, port } = await twoWorkspaces();
    const adds = Array.from({ length: 8 }, (_, i): [string, string] => [`add ${i}`, post("/api/v1/contacts/add", writer.token, { email: `w${i}@writers.example`, name: "W" })]);
    const order = await crowdThenLate(port, adds, ["list", get("/api/v1/contacts?limit=5", t.token)]);
    expect(order.every((o) => o.status === 200)).toBe(true);
    expect(order.findIndex((o) => o.label === "list")).toBeLessThanOrEqual(1);
    // The writes themselves all happened, in the order they arrived.
    expect(order.filter((o) => o.label !== "list").map((o) => o.label)).toEqual(Array.from({ length: 8 }, (_, i) => `add ${i}`));
  });

  it("another workspace's contact list is answered while a 500-contact import is still being written", async () => {
    const { t, writer, port } = await twoWorkspaces();
    const [importing, reading] = await openConnections(port, 2);
    const answers = answerOrder(new Map([["import", importing!], ["list", reading!]]));
    importing!.write(post("/api/v1/contacts/import", writer.token, { contacts: Array.from({ length: 500 }, (_, i) => ({ email: `bulk${i}@writers.example`, name: "Bulk" })) }));
    holdEventLoop(30);
    reading!.write(get("/api/v1/contacts?limit=5", t.token));
    holdEventLoop(30);
    const order = await answers;
    expect(order).toEqual([
      { label: "list", status: 200 },
      { label: "import", status: 200 },
    ]);
    expect(t.services.contacts.count(writer.team.id)).toBe(500);
  });
});

describe("writes are not queued behind reads", () => {
  it("a contact add that arrives after twenty queued contact lists is answered before most of them", async () => {
    const { t, writer, port } = await twoWorkspaces();
    const lists = Array.from({ length: 20 }, (_, i): [string, string] => [`list ${i}`, get("/api/v1/contacts?limit=5", t.token)]);
    const order = await crowdThenLate(port, lists, ["add", post("/api/v1/contacts/add", writer.token, { email: "late@writers.example", name: "Late" })]);
    expect(order.every((o) => o.status === 200)).toBe(true);
    // Before, every read received ran before the write (it came 21st); now reads and writes alternate.
    expect(order.findIndex((o) => o.label === "add")).toBeLessThanOrEqual(2);
    expect(order.filter((o) => o.label !== "add").map((o) => o.label)).toEqual(Array.from({ length: 20 }, (_, i) => `list ${i}`));
    expect(t.services.contacts.count(writer.team.id)).toBe(1);
  });
});
