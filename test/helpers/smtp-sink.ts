import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterEach } from "vitest";

/** One message the sink accepted (or refused), with its envelope and raw bytes. */
export interface SinkMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
}

/** What the sink answers to a message at the end of DATA: accept (undefined) or an SMTP error. */
export type SinkAnswer = undefined | { code: number; text: string };

export interface SmtpSink {
  port: number;
  /** Messages accepted (250), in order. */
  received: SinkMessage[];
  /** Messages answered with an error at the end of DATA. */
  refused: Array<SinkMessage & { code: number }>;
  /** Decides the answer to each complete message; default: accept. */
  answer: (message: SinkMessage) => SinkAnswer;
  close(): Promise<void>;
}

const running: SmtpSink[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/**
 * A real SMTP server (npm smtp-server) on 127.0.0.1, port 0: the relay of the delivery
 * tests. With `auth`, it requires that login (AUTH PLAIN/LOGIN, over plain TCP on loopback).
 */
export async function startSmtpSink(options: { auth?: { user: string; pass: string } } = {}): Promise<SmtpSink> {
  const sink: SmtpSink = {
    port: 0,
    received: [],
    refused: [],
    answer: () => undefined,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: !options.auth,
    allowInsecureAuth: true,
    disabledCommands: options.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      callback(Object.assign(new Error("5.7.8 authentication failed"), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const message: SinkMessage = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        };
        const answer = sink.answer(message);
        if (!answer) {
          sink.received.push(message);
          return callback(null, "Ok: queued");
        }
        sink.refused.push({ ...message, code: answer.code });
        callback(Object.assign(new Error(answer.text), { responseCode: answer.code }));
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.port = (server.server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  sink.close = () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve())));
  running.push(sink);
  return sink;
}

/** A header of a raw message, unfolded (undefined when absent). */
export function headerOf(raw: Buffer, name: string): string | undefined {
  const head = raw.toString("utf8").split(/\r\n\r\n/)[0]!.replace(/\r\n[ \t]+/g, " ");
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
