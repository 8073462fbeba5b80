import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One recipient's status from a delivery status notification (RFC 3464). */
export interface BounceReport {
  /** The VERP address the notification was sent to (`bounce+<executionId>@…`). */
  recipient: string;
  /** `5.1.1`: the first digit says permanent (5) or transient (4). */
  status: string;
  action: string | null;
  /** `smtp; 550 5.1.1 <…>: user unknown` */
  diagnostic: string | null;
}

export interface BounceListenerOptions {
  host: string;
  port: number;
  /** Whether the local part names a message of ours; others are refused at RCPT. */
  accepts(address: string): boolean;
  onReport(report: BounceReport): void | Promise<void>;
  log(line: string): void;
}

export interface BounceListener {
  port: number;
  close(): Promise<void>;
}

/** Largest notification accepted: a DSN carries the headers (or the whole) of the original. */
const MAX_BYTES = 2 * 1024 * 1024;

/**
 * The `message/delivery-status` body: one block of per-message fields, then one block per
 * recipient (RFC 3464 §2.1), separated by blank lines; the first block with a Status is used.
 */
export function parseDeliveryStatus(text: string): { status: string; action: string | null; diagnostic: string | null } | undefined {
  const unfolded = text.replace(/\r\n/g, "\n").replace(/\n[ \t]+/g, " ");
  for (const block of unfolded.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const status = /^([245])\.\d{1,3}\.\d{1,3}/.exec(fields.get("status") ?? "")?.[0];
    if (status) return { status, action: fields.get("action")?.toLowerCase() ?? null, diagnostic: fields.get("diagnostic-code") ?? null };
  }
  return undefined;
}

/**
 * Receives delivery status notifications for the VERP return paths (`outreach serve
 * --smtp-port N`; the return-path host's MX points here). Only RFC 3464 reports count: a
 * message without a `message/delivery-status` part (an auto-reply, spam) is accepted and
 * dropped, so senders get no signal to probe with.
 */
export async function startBounceListener(options: BounceListenerOptions): Promise<BounceListener> {
  const server = new SMTPServer({
    banner: "outreach bounce listener",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: MAX_BYTES,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.accepts(address.address)) return callback();
      callback(Object.assign(new Error("5.1.1 no such mailbox"), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      // keepDeliveryStatus: without it mailparser folds the report into the text body.
      simpleParser(stream, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, keepDeliveryStatus: true })
        .then(async (mail) => {
          const part = mail.attachments.find((a) => a.contentType.toLowerCase() === "message/delivery-status");
          const parsed = part ? parseDeliveryStatus(part.content.toString("utf8")) : undefined;
          if (!parsed) {
            options.log(`bounce listener: a message without a delivery status report was dropped`);
            return;
          }
          for (const rcpt of session.envelope.rcptTo) await options.onReport({ recipient: rcpt.address, ...parsed });
        })
        .then(
          () => callback(),
          (err: Error) => {
            options.log(`bounce listener: ${err.message}`);
            callback(Object.assign(new Error("4.3.0 could not process the report, try again later"), { responseCode: 451 }));
          },
        );
    },
  });
  server.on("error", (err) => options.log(`bounce listener: ${err.message}`));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
