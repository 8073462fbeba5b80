import { createServer, type Server, type Socket } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterEach } from "vitest";

/**
 * Receiving mail servers for the verification tests, each a real SMTP server (npm
 * smtp-server) on its own 127.0.0.x address and all on one port (the probe has one port
 * setting, as port 25 in production). Each records the dialogue it saw.
 */
export type MailboxBehaviour =
  /** 550 5.1.1 for any address not in `mailboxes`. */
  | "strict"
  /** Accepts every address. */
  | "catch-all"
  /** 451 4.7.1 to every RCPT. */
  | "greylist"
  /** Accepts the connection and never says a word. */
  | "tarpit"
  /** Hangs up when the first RCPT arrives. */
  | "drop-after-rcpt"
  /** Strict, offering STARTTLS with smtp-server's built-in self-signed certificate. */
  | "strict-starttls"
  /** Strict, hanging up at the 4th rejected RCPT of a session (as Postfix's smtpd_hard_error_limit does). */
  | "error-limit";

export interface SessionLog {
  rejected: number;
  ehlo: string | false;
  mailFrom: string[];
  rcptTo: string[];
  data: boolean;
  secure: boolean;
}

export interface MailboxServer {
  address: string;
  behaviour: MailboxBehaviour;
  mailboxes: Set<string>;
  sessions: SessionLog[];
  /** Most connections open at once. */
  maxConcurrent: number;
  connections: number;
  /** Added before each reply (simulated network latency), in ms. */
  latencyMs: number;
  close(): Promise<void>;
}

const running: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

function startBehaviour(address: string, port: number, behaviour: MailboxBehaviour, mailboxes: readonly string[]): Promise<MailboxServer> {
  const state: MailboxServer = { address, behaviour, mailboxes: new Set(mailboxes.map((m) => m.toLowerCase())), sessions: [], maxConcurrent: 0, connections: 0, latencyMs: 0, close: async () => {} };
  let open = 0;
  const logs = new Map<string, SessionLog>();
  const later = (fn: () => void) => (state.latencyMs ? setTimeout(fn, state.latencyMs) : fn());
  if (behaviour === "tarpit") {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      state.connections++;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    });
    return listen(server, address, port).then(() => {
      state.close = () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); });
      return state;
    });
  }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: behaviour === "strict-starttls" ? ["AUTH"] : ["STARTTLS", "AUTH"],
    logger: false,
    banner: `${behaviour} test server`,
    onConnect(session, callback) {
      state.connections++;
      open++;
      state.maxConcurrent = Math.max(state.maxConcurrent, open);
      const log: SessionLog = { rejected: 0, ehlo: false, mailFrom: [], rcptTo: [], data: false, secure: false };
      logs.set(session.id, log);
      state.sessions.push(log);
      later(() => callback());
    },
    onClose(session) {
      if (logs.delete(session.id)) open--;
    },
    onMailFrom(from, session, callback) {
      const log = logs.get(session.id)!;
      log.ehlo = session.hostNameAppearsAs;
      log.secure = session.secure;
      log.mailFrom.push(from.address);
      later(() => callback());
    },
    onRcptTo(to, session, callback) {
      const log = logs.get(session.id)!;
      log.rcptTo.push(to.address);
      const hangUp = () => {
        for (const connection of (server as unknown as { connections: Set<{ id: string; _socket: Socket }> }).connections) {
          if (connection.id === session.id) connection._socket.destroy();
        }
      };
      if (behaviour === "drop-after-rcpt") return hangUp();
      later(() => {
        if (behaviour === "greylist") return callback(smtpError(451, "4.7.1 Greylisted, please try again later"));
        if (behaviour === "catch-all" || state.mailboxes.has(to.address.toLowerCase())) return callback();
        if (behaviour === "error-limit" && ++log.rejected > 3) return hangUp();
        callback(smtpError(550, "5.1.1 User unknown"));
      });
    },
    onData(stream, session, callback) {
      logs.get(session.id)!.data = true;
      stream.resume();
      stream.on("end", () => callback());
    },
  });
  server.on("error", () => {});
  return listen(server.server, address, port).then(() => {
    state.close = () => new Promise((resolve) => server.close(() => resolve()));
    return state;
  });
}

function listen(server: Server, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * One server per entry, on 127.0.0.2, .3, … and one shared port (found by trying: a port
 * free on the first address may be taken on another).
 */
export async function startMailboxServers(specs: ReadonlyArray<{ behaviour: MailboxBehaviour; mailboxes?: string[] }>, firstHost = 2): Promise<{ port: number; servers: MailboxServer[] }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    const servers: MailboxServer[] = [];
    try {
      for (const [i, spec] of specs.entries()) servers.push(await startBehaviour(`127.0.0.${firstHost + i}`, port, spec.behaviour, spec.mailboxes ?? []));
      running.push(...servers);
      return { port, servers };
    } catch {
      await Promise.all(servers.map((s) => s.close()));
    }
  }
  throw new Error("no port free on every 127.0.0.x address");
}
