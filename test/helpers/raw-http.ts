import { connect } from "node:net";

export interface RawAnswer {
  /** Status of the first response, or null when the connection closed without one. */
  status: number | null;
  /** Everything the server sent. */
  text: string;
}

/**
 * Send bytes exactly as given over a fresh loopback connection and read until the server
 * closes it or has sent a whole answer saying `Connection: close` (requests should say
 * `Connection: close`), or `timeoutMs` passes. For bodies
 * no HTTP client would send: lying lengths, broken chunking, half-sent requests.
 * `after` runs once the bytes are written: `"end"` half-closes, `"destroy"` drops the
 * connection at once, `"wait"` keeps it open.
 */
export function rawExchange(port: number, parts: Array<string | Buffer>, options: { after?: "end" | "destroy" | "wait"; timeoutMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: match ? Number(match[1]) : null, text });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 10_000);
    socket.on("data", (d) => {
      chunks.push(d);
      // Like a real client, hang up once a whole answer that says `Connection: close` is in:
      // the server may linger reading what it was still being sent.
      if (answerIsComplete(Buffer.concat(chunks).toString("latin1"))) finish();
    });
    socket.on("close", finish);
    // A server that answers before reading everything may reset the connection while we
    // still write: what it sent before is kept.
    socket.on("error", () => {});
    socket.on("connect", () => {
      for (const part of parts) socket.write(part);
      if (options.after === "destroy") finish();
      else if ((options.after ?? "wait") === "end") socket.end();
    });
  });
}

/** A response head with `Connection: close` and as many body bytes as its Content-Length says. */
function answerIsComplete(text: string): boolean {
  const headEnd = text.indexOf("\r\n\r\n");
  if (headEnd < 0) return false;
  const head = text.slice(0, headEnd);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  return /\r\nconnection: *close/i.test(head) && length !== null && text.length - headEnd - 4 >= Number(length[1]);
}

/** `Transfer-Encoding: chunked` framing of `body` in chunks of `size` bytes. */
export function chunked(body: Buffer, size = 64 * 1024): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}
