import type { ImapSettings } from "../../providers/imap/mailbox-reader.js";

/** A setting that cannot be used (the config's ConfigError is built by the caller). */
type Fail = (message: string) => Error;

/**
 * `OUTREACH_IMAP_URL`: `imap://user:pass@host:port/INBOX` (STARTTLS when offered, port 143)
 * or `imaps://…` (TLS from the start, port 993). User and password are URL-decoded (an `@`
 * in the user is `%40`); the path is the mailbox (URL-decoded, default INBOX).
 */
export function imapSettings(env: NodeJS.ProcessEnv, fail: Fail): ImapSettings | undefined {
  const raw = env.OUTREACH_IMAP_URL?.trim();
  if (!raw) return undefined;
  const shown = JSON.stringify(raw.replace(/\/\/[^@/]*@/, "//…@"));
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(`OUTREACH_IMAP_URL must be a URL such as imaps://user:pass@imap.example.com/INBOX (got ${shown})`);
  }
  if ((url.protocol !== "imap:" && url.protocol !== "imaps:") || !url.hostname) {
    throw fail(`OUTREACH_IMAP_URL must be imap://user:pass@host[:port][/MAILBOX] or imaps://… (got ${shown})`);
  }
  if (!url.username || !url.password) throw fail(`OUTREACH_IMAP_URL must name the mailbox's user and password (imaps://user:pass@host/INBOX; got ${shown})`);
  if (url.search || url.hash) throw fail(`OUTREACH_IMAP_URL must have no query or fragment (got ${shown})`);
  const secure = url.protocol === "imaps:";
  let mailbox: string;
  try {
    mailbox = decodeURIComponent(url.pathname.replace(/^\//, "")) || "INBOX";
    return {
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port ? Number(url.port) : secure ? 993 : 143,
      secure,
      user: decodeURIComponent(url.username),
      pass: decodeURIComponent(url.password),
      mailbox,
    };
  } catch {
    throw fail(`OUTREACH_IMAP_URL has a malformed %-escape (got ${shown})`);
  }
}
