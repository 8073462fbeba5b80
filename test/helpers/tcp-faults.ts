import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterEach } from "vitest";

const servers: Array<{ server: Server; sockets: Set<Socket> }> = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      ({ server, sockets }) =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          server.close(() => resolve());
        }),
    ),
  );
});

async function listen(onConnection: (client: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    onConnection(socket);
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** A TCP server on 127.0.0.1 that answers every connection with `text` (not IMAP) and then nothing. */
export function garbageServer(text: string): Promise<number> {
  return listen((socket) => socket.write(text));
}

export interface ProxyOptions {
  /** Delay of each chunk in both directions, in ms (a slow server or network). */
  delayMs?: number;
  /**
   * Called with each chunk the client sends; return true to cut this connection right after
   * the server's next answer chunk (a connection dropped in the middle of a response).
   */
  cutAfter?: (clientChunk: string) => boolean;
  /**
   * Called with each chunk the client sends; return true to hang this connection from that
   * chunk on (nothing more is forwarded either way): a server that stopped answering.
   */
  holdWhen?: (clientChunk: string) => boolean;
}

/** A proxy on 127.0.0.1 in front of a real server (`targetPort`), with faults. */
export async function faultyProxy(targetPort: number, options: ProxyOptions = {}): Promise<{ port: number; connections: number; cuts: number; held: boolean }> {
  const stats = { port: 0, connections: 0, cuts: 0, held: false };
  stats.port = await listen((client) => {
    // Each direction forwards its chunks in order, each `delayMs` after the one before.
    const queue = () => {
      let tail = Promise.resolve();
      return (fn: () => void) => {
        if (!options.delayMs) return fn();
        tail = tail.then(() => new Promise<void>((resolve) => setTimeout(() => (fn(), resolve()), options.delayMs)));
      };
    };
    const toServer = queue();
    const toClient = queue();
    stats.connections++;
    const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    let cutPending = false;
    let held = false;
    client.on("data", (chunk: Buffer) => {
      if (held || options.holdWhen?.(chunk.toString("latin1"))) {
        held = stats.held = true;
        return;
      }
      if (options.cutAfter?.(chunk.toString("latin1"))) cutPending = true;
      toServer(() => !upstream.destroyed && upstream.write(chunk));
    });
    upstream.on("data", (chunk: Buffer) => {
      toClient(() => {
        if (client.destroyed || held) return;
        if (cutPending) {
          // Half of the answer, then the line goes dead.
          client.write(chunk.subarray(0, Math.max(1, chunk.length >> 1)));
          stats.cuts++;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(chunk);
      });
    });
  });
  return stats;
}
