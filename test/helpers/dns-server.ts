import { createServer as createTcpProbe } from "node:net";
import dns2 from "dns2";
import { afterEach } from "vitest";

const { Packet } = dns2;

/**
 * A zone the test DNS server answers from. TXT values given as arrays are sent as several
 * character-strings of one record (as DNS does with values over 255 bytes).
 */
export interface TestZone {
  txt?: Record<string, Array<string | string[]>>;
  cname?: Record<string, string>;
  /** MX records: exchange "." is the null MX of RFC 7505. */
  mx?: Record<string, Array<{ exchange: string; priority: number }>>;
  a?: Record<string, string[]>;
  aaaa?: Record<string, string[]>;
}

/** `answer`: serve the zone; `servfail`: SERVFAIL to everything; `silent`: never answer (timeouts). */
export type DnsServerMode = "answer" | "servfail" | "silent";

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for `config.dnsServers`. */
  address: string;
  port: number;
  zone: TestZone;
  mode: DnsServerMode;
  /** Question names received, lower-cased (`name TYPE`). */
  queries: string[];
  close(): Promise<void>;
}

const running: TestDnsServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const TYPE_NAME: Record<number, string> = { [Packet.TYPE.TXT]: "TXT", [Packet.TYPE.CNAME]: "CNAME", [Packet.TYPE.A]: "A", [Packet.TYPE.AAAA]: "AAAA", [Packet.TYPE.MX]: "MX" };

function knownName(zone: TestZone, name: string): boolean {
  return Boolean(zone.txt?.[name] || zone.cname?.[name] || zone.mx?.[name] || zone.a?.[name] || zone.aaaa?.[name]);
}

/**
 * A real DNS server on 127.0.0.1 (UDP and TCP on the same port, since answers with a
 * 2048-bit DKIM key or two of them exceed 512 bytes and resolvers retry over TCP).
 */
export async function startDnsServer(zone: TestZone = {}, mode: DnsServerMode = "answer"): Promise<TestDnsServer> {
  const state = { zone, mode, queries: [] as string[] };
  const handle = (request: any, send: (response: any) => void) => {
    const [question] = request.questions;
    const name = String(question.name).toLowerCase().replace(/\.$/, "");
    state.queries.push(`${name} ${TYPE_NAME[question.type] ?? question.type}`);
    if (state.mode === "silent") return;
    const response = Packet.createResponseFromRequest(request);
    if (state.mode === "servfail") {
      response.header.rcode = Packet.RCODE.SERVFAIL;
      return send(response);
    }
    const z = state.zone;
    const cname = z.cname?.[name];
    if (cname) {
      response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: cname });
    } else if (question.type === Packet.TYPE.TXT && z.txt?.[name]) {
      for (const data of z.txt[name]) {
        response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data });
      }
    } else if (question.type === Packet.TYPE.MX && z.mx?.[name]) {
      for (const { exchange, priority } of z.mx[name]) {
        response.answers.push({ name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 60, exchange: exchange === "." ? "" : exchange, priority });
      }
    } else if (question.type === Packet.TYPE.A && z.a?.[name]) {
      for (const address of z.a[name]) response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address });
    } else if (question.type === Packet.TYPE.AAAA && z.aaaa?.[name]) {
      for (const address of z.aaaa[name]) response.answers.push({ name: question.name, type: Packet.TYPE.AAAA, class: Packet.CLASS.IN, ttl: 60, address });
    } else if (!knownName(z, name)) {
      response.header.rcode = Packet.RCODE.NXDOMAIN;
    }
    send(response);
  };

  // Same port for UDP and TCP: take a free UDP port, then bind TCP to it (retry if taken).
  for (let attempt = 0; attempt < 20; attempt++) {
    const server = dns2.createServer({ udp: true, tcp: true, handle });
    server.on("requestError", () => {});
    // dns2 re-emits its UDP/TCP servers' errors on this emitter: without a listener, a TCP
    // port taken by someone else (EADDRINUSE, below) throws before the retry sees it.
    server.on("error", () => {});
    const udp = (server as any).servers.udp;
    const tcp = (server as any).servers.tcp;
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    const port = udp.address().port as number;
    const tcpOk = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (!tcpOk) {
      udp.close();
      continue;
    }
    let closing: Promise<void> | undefined;
    const result: TestDnsServer = {
      address: `127.0.0.1:${port}`,
      port,
      get zone() {
        return state.zone;
      },
      set zone(z: TestZone) {
        state.zone = z;
      },
      get mode() {
        return state.mode;
      },
      set mode(m: DnsServerMode) {
        state.mode = m;
      },
      queries: state.queries,
      close: () =>
        (closing ??= new Promise<void>((resolve) => {
          let open = 2;
          const done = () => --open === 0 && resolve();
          udp.close(done);
          tcp.close(done);
        })),
    };
    running.push(result);
    return result;
  }
  throw new Error("could not bind a DNS server on 127.0.0.1");
}

/** A loopback port with nothing listening (neither UDP nor, while it stays free, TCP). */
export async function closedPort(): Promise<number> {
  const probe = createTcpProbe();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
