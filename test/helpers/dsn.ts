import nodemailer from "nodemailer";

/**
 * A delivery status notification (RFC 3464) as a receiving MTA sends it back to the
 * envelope sender of a message: multipart/report with a message/delivery-status part.
 */
export function deliveryStatusNotification(options: { to: string; recipient: string; status: string; diagnostic: string }): string {
  const boundary = "dsn-boundary-1";
  return [
    "From: Mail Delivery System <MAILER-DAEMON@mx.clinic.test>",
    `To: ${options.to}`,
    "Subject: Undelivered Mail Returned to Sender",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "This is the mail system at host mx.clinic.test. Your message could not be delivered.",
    "",
    `--${boundary}`,
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.clinic.test",
    "Arrival-Date: Sun, 22 Nov 2026 10:00:05 +0000",
    "",
    `Final-Recipient: rfc822; ${options.recipient}`,
    `Action: ${options.status.startsWith("5") ? "failed" : "delayed"}`,
    `Status: ${options.status}`,
    `Diagnostic-Code: smtp; ${options.diagnostic}`,
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

/** Hand a raw message to an SMTP server on 127.0.0.1 with the null envelope sender of bounces. */
export async function sendRaw(port: number, to: string, raw: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from: "", to: [to] }, raw });
  } finally {
    transport.close();
  }
}
