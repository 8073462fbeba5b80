import type { SendingDomain } from "../../src/core/schemas/sending-domain.js";
import type { TestZone } from "./dns-server.js";

/** Split a long TXT value into DNS character-strings of at most `size` bytes. */
export function splitTxt(value: string, size = 255): string[] {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += size) parts.push(value.slice(i, i + size));
  return parts;
}

export function recordOf(domain: SendingDomain, purpose: SendingDomain["dnsRecords"][number]["purpose"]) {
  const record = domain.dnsRecords.find((r) => r.purpose === purpose);
  if (!record) throw new Error(`no ${purpose} record`);
  return record;
}

/** A zone with every record of the domain published as asked (DKIM split as DNS does). */
export function correctZone(domain: SendingDomain): TestZone {
  const txt: NonNullable<TestZone["txt"]> = {};
  const cname: NonNullable<TestZone["cname"]> = {};
  for (const record of domain.dnsRecords) {
    if (record.type === "CNAME") cname[record.host] = record.value;
    else (txt[record.host] ??= []).push(record.value.length > 255 ? splitTxt(record.value) : record.value);
  }
  return { txt, cname };
}
