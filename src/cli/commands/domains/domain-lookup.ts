import type { ApiClient } from "../../../client/api-client.js";
import { normaliseDomain } from "../../../core/domain-name.js";
import { DNS_RECORD_PURPOSE_LABELS, type DnsRecord, type SendingDomain } from "../../../core/schemas/sending-domain.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT } from "../../exit-codes.js";
import { printRows } from "../../output.js";

/** What the `domains` verbs share: finding a domain by id or name, and its DNS records as a table. */

export function printRecords(ctx: CommandContext, records: readonly DnsRecord[], withResult: boolean): void {
  printRows(ctx.io, ctx.env, records, [
    { header: "PURPOSE", value: (r) => DNS_RECORD_PURPOSE_LABELS[r.purpose] },
    { header: "TYPE", value: (r) => r.type },
    { header: "HOST", value: (r) => r.host },
    { header: "VALUE", value: (r) => r.value },
    { header: "REQUIRED", value: (r) => (r.required ? "yes" : "advised") },
    { header: "STATUS", value: (r) => r.status },
    ...(withResult ? [{ header: "ERROR", value: (r: DnsRecord) => r.error ?? "" }] : []),
  ]);
}

/** The domain named by id or by name (in any spelling the server would normalise the same way). */
export function findDomain(domains: readonly SendingDomain[], ref: string): SendingDomain {
  const normalised = normaliseDomain(ref);
  const found = domains.find((d) => d.id === ref || (normalised.ok && d.domain === normalised.domain));
  if (!found) throw new CliError(`no sending domain ${JSON.stringify(ref)} in the active workspace (see \`outreach domains list\`)`, EXIT.notFound);
  return found;
}

/** The active workspace's id, which endpoints 5 and 6 take as `teamId`. */
export async function activeTeamId(client: ApiClient, signal?: AbortSignal): Promise<string> {
  return (await client.call("teams.list", { signal })).activeTeam.id;
}

export async function listDomains(client: ApiClient, teamId: string, signal?: AbortSignal) {
  return client.call("sendingDomains.list", { query: { teamId }, signal });
}
