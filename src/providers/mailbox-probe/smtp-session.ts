import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";

/** One SMTP reply: the code, the enhanced status code (RFC 3463) when given, the text. */
export interface SmtpReply {
  code: number;
  enhanced: string | null;
  text: string;
}

export class SmtpSessionError extends Error {
  override name = "SmtpSessionError";
  constructor(
    message: string,
    /** `timeout`: no answer in time; `closed`: the server hung up; `network`: no connection. */
    readonly kind: "timeout" | "closed" | "network",
  ) {
    super(message);
  }
}

export interface SmtpSessionOptions {
  /** IP address to connect to (resolved by the caller, who applies the address policy). */
  address: string;
  port: number;
  /** The MX host's name: TLS server name and messages. */
  hostName: string;
  /** Time allowed for the connection and for each reply. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * A minimal SMTP client over node:net/tls for mailbox probing (RFC 5321): it only knows
 * the commands the probe sends (EHLO/HELO, STARTTLS, MAIL, RCPT, RSET, QUIT) and never
 * has a way to send DATA. Hand-written rather than nodemailer's SMTPConnection because the
 * probe needs each RCPT's own reply, several RCPTs per transaction with RSET between
 * batches, one random RCPT, and RFC 2920 pipelining of the RCPTs; SMTPConnection drives
 * a whole envelope + DATA itself and hides per-recipient replies behind its send().
 * Replies are read in order (a FIFO of waiters), so pipelined commands match their replies.
 */
export class SmtpSession {
  private socket: Socket | TLSSocket;
  private buffer = "";
  private lines: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private readonly waiters: Array<{ resolve: (r: SmtpReply) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }> = [];
  private failure: SmtpSessionError | undefined;
  /** Extensions of the last EHLO answer, upper-cased keywords. */
  extensions = new Set<string>();
  /** `none`, `valid`, or the certificate's problem after STARTTLS. */
  tls = "none";

  private constructor(
    socket: Socket,
    private readonly options: SmtpSessionOptions,
  ) {
    this.socket = socket;
    this.attach(socket);
  }

  /** Connects and reads the greeting; a greeting other than 220 closes and throws. */
  static async open(options: SmtpSessionOptions): Promise<{ session: SmtpSession; greeting: SmtpReply }> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ host: options.address, port: options.port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new SmtpSessionError(`no connection to ${options.hostName} (${options.address}:${options.port}) within ${options.timeoutMs} ms`, "timeout"));
      }, options.timeoutMs);
      s.once("connect", () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once("error", (err) => {
        clearTimeout(timer);
        reject(new SmtpSessionError(`cannot connect to ${options.hostName} (${options.address}:${options.port}): ${(err as NodeJS.ErrnoException).code ?? err.message}`, "network"));
      });
    });
    const session = new SmtpSession(socket, options);
    options.signal?.addEventListener("abort", () => session.close(), { once: true });
    try {
      const greeting = await session.read();
      return { session, greeting };
    } catch (err) {
      session.close();
      throw err;
    }
  }

  private attach(socket: Socket): void {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.onData(chunk));
    socket.on("error", (err) => this.fail(new SmtpSessionError(`${this.options.hostName}: ${(err as NodeJS.ErrnoException).code ?? err.message}`, "network")));
    socket.on("close", () => this.fail(new SmtpSessionError(`${this.options.hostName} closed the connection`, "closed")));
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, "");
      this.buffer = this.buffer.slice(newline + 1);
      this.lines.push(line);
      // "250-…" continues a reply, "250 …" (or a bare code) ends it.
      if (/^\d{3}(?: |$)/.test(line)) this.finishReply();
    }
    if (this.buffer.length > 64 * 1024) this.fail(new SmtpSessionError(`${this.options.hostName} sent a line over 64 KiB`, "closed"));
  }

  private finishReply(): void {
    const lines = this.lines.splice(0);
    const code = Number(lines[lines.length - 1]!.slice(0, 3));
    const texts = lines.map((l) => l.slice(4));
    const enhanced = /^([245]\.\d{1,3}\.\d{1,3})\b/.exec(texts[texts.length - 1] ?? "")?.[1] ?? null;
    const reply = { code, enhanced, text: texts.join("\n") };
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(reply);
    } else this.replies.push(reply);
  }

  private fail(err: SmtpSessionError): void {
    this.failure ??= err;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(this.failure);
    }
  }

  /** The next reply, in order. */
  read(): Promise<SmtpReply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new SmtpSessionError(`${this.options.hostName} did not answer within ${this.options.timeoutMs} ms`, "timeout"));
        this.socket.destroy();
      }, this.options.timeoutMs);
      this.waiters.push({ resolve, reject, timer });
    });
  }

  private write(line: string): void {
    if (/[\r\n]/.test(line)) throw new Error("SMTP command with a line break");
    if (this.failure) throw this.failure;
    this.socket.write(line + "\r\n");
  }

  /** One command and its reply. */
  async command(line: string): Promise<SmtpReply> {
    this.write(line);
    return this.read();
  }

  /**
   * Several commands whose replies come back in order: written at once when the server
   * offers PIPELINING (RFC 2920), else one after the other. `onReply` sees each reply as it
   * comes, so what was answered before a failure is kept by the caller.
   */
  async commands(lines: readonly string[], onReply: (index: number, reply: SmtpReply) => void): Promise<void> {
    if (!this.extensions.has("PIPELINING")) {
      for (let i = 0; i < lines.length; i++) onReply(i, await this.command(lines[i]!));
      return;
    }
    for (const line of lines) this.write(line);
    for (let i = 0; i < lines.length; i++) onReply(i, await this.read());
  }

  /** EHLO, or HELO when the server does not know EHLO; records the extensions. */
  async hello(name: string): Promise<SmtpReply> {
    const ehlo = await this.command(`EHLO ${name}`);
    if (ehlo.code === 250) {
      this.extensions = new Set(ehlo.text.split("\n").slice(1).map((l) => l.trim().split(/\s+/)[0]!.toUpperCase()));
      return ehlo;
    }
    this.extensions = new Set();
    return this.command(`HELO ${name}`);
  }

  /**
   * STARTTLS (RFC 3207). The certificate is not required to be valid: the probe asks the
   * same questions either way, and mail servers with self-signed certificates are common
   * (opportunistic TLS, RFC 7435); what was wrong is recorded in `tls`.
   */
  async startTls(): Promise<SmtpReply> {
    const reply = await this.command("STARTTLS");
    if (reply.code !== 220) return reply;
    const plain = this.socket;
    plain.removeAllListeners("data");
    plain.removeAllListeners("close");
    plain.removeAllListeners("error");
    const secure = await new Promise<TLSSocket>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SmtpSessionError(`${this.options.hostName}: TLS handshake took over ${this.options.timeoutMs} ms`, "timeout")), this.options.timeoutMs);
      const s = tlsConnect({ socket: plain, servername: this.options.hostName, rejectUnauthorized: false }, () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once("error", (err) => {
        clearTimeout(timer);
        reject(new SmtpSessionError(`${this.options.hostName}: TLS handshake failed (${err.message})`, "network"));
      });
    }).catch((err: SmtpSessionError) => {
      plain.destroy();
      this.fail(err);
      throw err;
    });
    this.socket = secure;
    this.attach(secure);
    this.tls = secure.authorized ? "valid" : `certificate not trusted (${String(secure.authorizationError ?? "unknown reason")})`;
    return reply;
  }

  /** QUIT politely (its reply is not awaited for long), then close. */
  async quit(): Promise<void> {
    try {
      if (!this.failure) {
        this.write("QUIT");
        await Promise.race([this.read().catch(() => undefined), new Promise((r) => setTimeout(r, Math.min(1000, this.options.timeoutMs)))]);
      }
    } catch {
      // closing anyway
    }
    this.close();
  }

  close(): void {
    this.socket.destroy();
  }
}
