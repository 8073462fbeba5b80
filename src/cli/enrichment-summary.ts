import type { EnrichmentErrorCode, Lead } from "../core/schemas/lead.js";

const LABELS: Record<EnrichmentErrorCode, string> = {
  robots: "robots.txt disallows",
  timeout: "timed out",
  tls: "TLS/certificate error",
  http_status: "HTTP error",
  network: "unreachable",
  blocked: "not a public address",
  too_large: "too large",
  not_text: "not a web page",
  redirects: "redirect loop",
  bad_url: "invalid URL",
  unreadable: "unreadable page",
  undeliverable: "email domain cannot receive mail",
  error: "other error",
};

/**
 * The stderr lines that tell the user which websites could not be read and why
 * ("website enrichment failed for 3 of 12 sites: 2 timed out, 1 robots.txt disallows"),
 * and how many found emails were dropped because their domain cannot receive mail.
 * Empty when nothing failed.
 */
export function enrichmentFailureSummary(leads: readonly Lead[]): string[] {
  const sites = leads.filter((l) => l.website).length;
  const counts = new Map<EnrichmentErrorCode, number>();
  let dropped = 0;
  for (const lead of leads) {
    const code = lead.enrichmentError?.code;
    if (!code) continue;
    if (code === "undeliverable") dropped++;
    else counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const lines: string[] = [];
  const failed = [...counts.values()].reduce((a, b) => a + b, 0);
  if (failed) {
    const reasons = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${n} ${LABELS[code]}`);
    lines.push(`website enrichment failed for ${failed} of ${sites} site${sites === 1 ? "" : "s"}: ${reasons.join(", ")} (each lead's reason: enrichmentError in --json)`);
  }
  if (dropped) lines.push(`${dropped} email${dropped === 1 ? "" : "s"} dropped: the domain cannot receive mail (no MX, A or AAAA record)`);
  return lines;
}
