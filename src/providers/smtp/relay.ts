import { Readable } from "node:stream";
import SMTPConnection from "nodemailer/lib/smtp-connection";

export interface RelaySettings {
  host: string;
  port: number;
  /** TLS from the start (smtps://); otherwise STARTTLS when the relay offers it. */
  secure: boolean;
  user?: string;
  pass?: string;
  /** Connections kept open at most; fewer while the relay's answers say so (see `SmtpRelay`). */
  connections: number;
  /** The name we greet with (EHLO). */
  clientName?: string;
  /** Inactivity timeout of a connection, ms (default 60 s). */
  socketTimeoutMs?: number;
  /** Milliseconds now (default Date.now): when a refusal's hold on growing ends. */
  now?: () => number;
}

export interface RelayEnvelope {
  from: string;
  to: string[];
}

/**
 * What the relay answered, or why there is no answer. `finalDotSent` says whether the
 * terminating `.` of DATA left this process: before it, the relay cannot have accepted
 * the message (RFC 5321 §4.1.1.4: an incomplete DATA is discarded).
 */
export class RelayError extends Error {
  override name = "RelayError";
  constructor(
    message: string,
    readonly kind: "permanent" | "temporary" | "cancelled",
    readonly finalDotSent: boolean,
    /** The relay's reply code, when it replied. */
    readonly responseCode?: number,
  ) {
    super(message);
  }

  /** The dot went out and no reply came: the relay may or may not have the message. */
  get unanswered(): boolean {
    return this.finalDotSent && this.responseCode === undefined && this.kind !== "cancelled";
  }
}

export interface RelayResult {
  /** The relay's reply to the message (`250 2.0.0 Ok: queued as …`). */
  response: string;
}

/**
 * Delivers raw messages to one SMTP relay (OUTREACH_SMTP_URL) over a few reused
 * connections, with nodemailer's SMTP client.
 */
export interface Relay {
  /**
   * Send `raw`. `beforeFinalDot` runs once the whole message is on its way and before the
   * final `.` is written: the caller records that the relay may now accept it (the `.`
   * waits for its promise, when it returns one). When it answers false (the execution was
   * cancelled meanwhile) the `.` is never sent, the connection is dropped, and the relay
   * discards the message.
   */
  send(envelope: RelayEnvelope, raw: Buffer, beforeFinalDot: () => boolean | Promise<boolean>): Promise<RelayResult>;
  close(): Promise<void>;
}

type NodemailerError = Error & { code?: string; responseCode?: number; response?: string; command?: string };

/** How long an unused connection stays open. */
const IDLE_MS = 10_000;
/** Messages per connection before it is replaced (as nodemailer's pool does). */
const MAX_MESSAGES = 100;
/** After a refusal the pool grows no further than the relay then took, for this long; then it asks again. */
const REFUSAL_HOLD_MS = 60_000;

interface Connection {
  smtp: SMTPConnection;
  messages: number;
  alive: boolean;
  idleTimer?: NodeJS.Timeout;
}

/**
 * The message as a stream that ends only when allowed: nodemailer writes the final
 * `.\r\n` when its source ends. The first read (after the relay's 354) hands over the
 * bytes; the next read, once they are consumed, is the point of no return.
 */
class HeldMessage extends Readable {
  private reads = 0;
  ended = false;

  constructor(
    private readonly raw: Buffer,
    private readonly beforeFinalDot: () => boolean | Promise<boolean>,
  ) {
    super();
  }

  override _read(): void {
    this.reads++;
    if (this.reads === 1) {
      this.push(this.raw);
      return;
    }
    if (this.ended) return;
    let allowed: boolean | Promise<boolean>;
    try {
      allowed = this.beforeFinalDot();
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    // No further read comes until this one pushes: the `.` waits for the answer.
    if (typeof allowed === "boolean") this.finish(allowed);
    else allowed.then((ok) => this.finish(ok), (err: unknown) => this.destroy(err as Error));
  }

  private finish(allowed: boolean): void {
    if (this.destroyed) return;
    if (!allowed) {
      this.destroy(Object.assign(new Error("cancelled before the end of DATA"), { cancelled: true }));
      return;
    }
    this.ended = true;
    this.push(null);
  }
}

function describe(err: NodemailerError): string {
  const reply = err.response?.trim();
  return reply ? `${err.command ? `${err.command}: ` : ""}${reply}` : err.message;
}

/**
 * The pool is sized by the relay's answers (docs/self-hosting.md, "Relay connections"): it
 * starts with one connection and allows one more (up to `connections`) each time the relay
 * accepts a message. A new connection refused (a 421 greeting, a refused or failed
 * connect) while others are open or opening sets the limit to those others (each of them
 * refused in turn lowers it again); a 421 to a command (the
 * relay closing the channel, overloaded) halves it (at least one). After either, the pool
 * grows no further than that for a minute, then asks again. A message whose new connection
 * was refused while others are open waits for one of them instead of failing. So a relay
 * that takes five sessions gets five within the first messages, and one that takes two
 * refuses the extra sessions asked for before its first refusal arrives, then none for a
 * minute: not one per message, as a fixed pool of more than it takes would get.
 */
export class SmtpRelay implements Relay {
  private readonly idle: Connection[] = [];
  private open = 0;
  private limit = 1;
  /** The most the pool may grow to until `holdUntil` (after a refusal). */
  private ceiling: number;
  private holdUntil = 0;
  private readonly waiting: Array<(c: Connection | Error) => void> = [];
  private closed = false;

  constructor(private readonly settings: RelaySettings) {
    this.ceiling = settings.connections;
  }

  private now(): number {
    return (this.settings.now ?? Date.now)();
  }

  /** Connections the relay's answers allow now (1 … `connections`). */
  get connectionLimit(): number {
    return this.limit;
  }

  /** An accepted message: one connection more is allowed, and a waiter may open it at once. */
  private grow(): void {
    const most = this.now() < this.holdUntil ? this.ceiling : this.settings.connections;
    if (this.limit >= most) return;
    this.limit++;
    if (this.waiting.length && this.open < this.limit) this.wakeOne();
  }

  /** The relay wants fewer sessions: `to` at most (at least one), and no more for a while. */
  private shrink(to: number): void {
    this.limit = Math.max(1, Math.min(this.limit, to));
    this.ceiling = this.limit;
    this.holdUntil = this.now() + REFUSAL_HOLD_MS;
  }

  async send(envelope: RelayEnvelope, raw: Buffer, beforeFinalDot: () => boolean | Promise<boolean>): Promise<RelayResult> {
    const connection = await this.acquire();
    const message = new HeldMessage(raw, beforeFinalDot);
    return new Promise<RelayResult>((resolve, reject) => {
      connection.smtp.send(envelope, message, (err, info) => {
        connection.messages++;
        if (!err && info) {
          this.release(connection, "reuse");
          this.grow();
          resolve({ response: info.response ?? "250" });
          return;
        }
        const e = (err ?? new Error("no answer")) as NodemailerError;
        if (e.responseCode === 421) this.shrink(Math.floor(this.limit / 2));
        const cancelled = message.destroyed && !message.ended && /cancelled before/.test(String(e.message));
        // A refusal of this message leaves the connection usable after RSET; anything else does not.
        const reusable = !cancelled && (e.code === "EENVELOPE" || e.code === "EMESSAGE") && e.responseCode !== 421;
        this.release(connection, reusable ? "reset" : "drop");
        if (cancelled) return reject(new RelayError("the execution was cancelled before the message was complete; the relay discarded it", "cancelled", false));
        const code = typeof e.responseCode === "number" ? e.responseCode : undefined;
        const kind = code !== undefined && code >= 500 ? "permanent" : "temporary";
        reject(new RelayError(describe(e), kind, message.ended, code));
      });
    });
  }

  /** Whether another connection may be opened now. */
  private mayOpen(): boolean {
    return this.open < this.limit;
  }

  private connect(): Promise<Connection> {
    const s = this.settings;
    const smtp = new SMTPConnection({
      host: s.host,
      port: s.port,
      secure: s.secure,
      name: s.clientName,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: s.socketTimeoutMs ?? 60_000,
    });
    const connection: Connection = { smtp, messages: 0, alive: true };
    const dead = () => {
      connection.alive = false;
      const at = this.idle.indexOf(connection);
      if (at < 0) return;
      // An idle one the relay closed: its slot is free (one in use is counted out by its send's answer).
      this.idle.splice(at, 1);
      clearTimeout(connection.idleTimer);
      this.open--;
      this.wakeOne();
    };
    smtp.on("error", dead);
    smtp.on("end", dead);
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: RelayError) => {
        if (settled) return;
        settled = true;
        dead();
        smtp.close();
        reject(err);
      };
      const unreachable = (err?: Error) =>
        fail(new RelayError(`cannot reach the SMTP relay ${s.host}:${s.port}: ${err ? describe(err as NodemailerError) : "the connection closed"}`, "temporary", false));
      // nodemailer reports a refused or failed connection as an 'error' event only: its
      // connect callback runs on success (or a bad greeting), so without these the promise
      // would never settle.
      smtp.once("error", unreachable);
      smtp.once("end", () => unreachable());
      const ready = () => {
        if (settled) return;
        settled = true;
        smtp.off("error", unreachable);
        resolve(connection);
      };
      smtp.connect((err) => {
        if (err) return unreachable(err);
        if (!s.user) return ready();
        smtp.login({ user: s.user, pass: s.pass ?? "" }, (loginErr) => {
          if (!loginErr) return ready();
          // A refused login is the operator's to fix, not the message's: retry later.
          fail(new RelayError(`the SMTP relay refused the login: ${describe(loginErr as NodemailerError)}`, "temporary", false));
        });
      });
    });
  }

  private async acquire(): Promise<Connection> {
    if (this.closed) throw new RelayError("the relay connection is closed", "temporary", false);
    const idle = this.takeIdle();
    if (idle) return idle;
    if (this.mayOpen()) {
      this.open++;
      try {
        return await this.connect();
      } catch (err) {
        this.open--;
        this.shrink(this.open);
        // Others are open: the relay is there and wants fewer sessions; use one of them
        // (the limit has shrunk, so this ends waiting for theirs).
        if (this.open > 0 && !this.closed) return this.acquire();
        this.wakeOne();
        throw err;
      }
    }
    const next = await new Promise<Connection | Error>((resolve) => this.waiting.push(resolve));
    if (next instanceof Error) throw next;
    return next;
  }

  /** An idle connection still alive, if any (the dead ones found on the way are counted out). */
  private takeIdle(): Connection | undefined {
    for (;;) {
      const idle = this.idle.pop();
      if (!idle) return undefined;
      clearTimeout(idle.idleTimer);
      if (idle.alive) return idle;
      this.open--;
    }
  }

  /** `reuse` after a sent message (a new MAIL FROM may follow at once), `reset` after a refused one (RSET first), `drop` otherwise. */
  private release(connection: Connection, how: "reuse" | "reset" | "drop"): void {
    const drop = () => {
      connection.alive = false;
      connection.smtp.close();
      this.open--;
      this.wakeOne();
    };
    if (how === "drop" || !connection.alive || this.closed || connection.messages >= MAX_MESSAGES) return drop();
    const handOver = () => {
      const waiter = this.waiting.shift();
      if (waiter) return waiter(connection);
      connection.idleTimer = setTimeout(() => {
        const at = this.idle.indexOf(connection);
        if (at < 0) return;
        this.idle.splice(at, 1);
        connection.alive = false;
        connection.smtp.quit();
        this.open--;
        this.wakeOne();
      }, IDLE_MS);
      connection.idleTimer.unref();
      this.idle.push(connection);
    };
    if (how === "reuse") return handOver();
    connection.smtp.reset((err) => (err || !connection.alive ? drop() : handOver()));
  }

  /** A slot freed (or the limit grew): let one waiter open a connection of its own, within the limit. */
  private wakeOne(): void {
    if (!this.mayOpen()) return;
    const waiter = this.waiting.shift();
    if (!waiter) return;
    this.open++;
    this.connect().then(waiter, (err: Error) => {
      this.open--;
      this.shrink(this.open);
      // Refused while others are open: an idle one of theirs, or first in line for one.
      if (this.open === 0 || this.closed) return waiter(err);
      const idle = this.takeIdle();
      if (idle) waiter(idle);
      else this.waiting.unshift(waiter);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter(new RelayError("the relay connection is closed", "temporary", false));
    for (const connection of this.idle.splice(0)) {
      clearTimeout(connection.idleTimer);
      connection.alive = false;
      connection.smtp.quit();
      this.open--;
    }
  }
}
