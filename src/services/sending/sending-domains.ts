import { domainToASCII } from "node:url";
import { utcDay } from "../../core/clock.js";
import { isAtOrBelow, normaliseDomain } from "../../core/domain-name.js";
import { AppError, badRequest, conflict, forbidden, notFound } from "../../core/errors.js";
import { newId, randomBase62 } from "../../core/ids.js";
import type { AddSendingDomainBody, DmarcStatus, DnsRecord, SendingDomain, SendingDomainList } from "../../core/schemas/sending-domain.js";
import { NodeDnsLookup, type DnsLookup } from "../../providers/dns/resolver.js";
import type { Keyring } from "../../core/crypto.js";
import { generateEd25519DkimKey } from "./dkim-keys.js";
import { DKIM_ED25519_KEY_COLUMN, dkimKeyAad, isUniqueViolation, SENDING_DOMAIN_ENCRYPTED_COLUMNS, SendingDomainsRepo, type SendingDomainRow } from "../../store/sending-domains.js";
import type { Principal } from "../access/auth.js";
import {
  applyOutcome,
  checkDkim,
  checkDmarc,
  checkOwnership,
  checkReturnPath,
  checkSpf,
  domainStatus,
  plannedRecords,
  summariseErrors,
  type RecordOutcome,
} from "./domain-records.js";
import type { ServiceDeps } from "../deps.js";
import { columnSetOver, type EncryptedColumnSet } from "../key-rotation.js";
import type { PlanService } from "../access/plans.js";
import { isManager, requireManager } from "../access/roles.js";

/** What the mail sender needs to sign for a domain. */
export interface DkimSigningKey {
  domain: string;
  selector: string;
  privateKeyPem: string;
  /** The Ed25519 key (RFC 8463), when the domain opted in and its record is verified. */
  ed25519?: { selector: string; privateKeyPem: string };
}

export interface SendingDomainServiceDeps extends Pick<ServiceDeps, "db" | "clock" | "config" | "dkimKeys"> {
  plans: PlanService;
  /** The keyring as it is now: a rotation run by another process re-encrypts DKIM keys under a new key. */
  keys: { get(): Keyring };
  /** The DNS lookups of a verification (default: node:dns with the configured servers, timeout and tries). */
  lookup?: DnsLookup;
}

/**
 * Sending domains (endpoints 5-8): add with generated DKIM key and records to publish,
 * list, verify against DNS, remove. Owner/admin only for changes; adding and verifying
 * also need a plan with custom sender.
 */
export class SendingDomainService {
  private readonly repo: SendingDomainsRepo;
  private readonly plans: PlanService;
  private readonly keys: { get(): Keyring };
  private readonly lookup: DnsLookup;
  /** Per-domain time (ms) before which another verification is refused. In memory: one process owns a data dir. */
  private readonly nextVerifyAt = new Map<string, number>();

  constructor(private readonly deps: SendingDomainServiceDeps) {
    this.repo = new SendingDomainsRepo(deps.db);
    this.plans = deps.plans;
    this.keys = deps.keys;
    this.lookup = deps.lookup ?? new NodeDnsLookup({ servers: deps.config.dnsServers, timeoutMs: deps.config.dnsTimeoutMs, tries: deps.config.dnsTries });
  }

  async add(principal: Principal, teamId: string, body: AddSendingDomainBody): Promise<{ success: true }> {
    const team = this.activeTeam(principal, teamId);
    requireManager(principal, "add a sending domain");
    this.assertCustomSender(team, "add a sending domain");
    const normalised = normaliseDomain(body.domain);
    if (!normalised.ok) throw badRequest(`invalid body: domain ${normalised.reason}`);
    const domain = normalised.domain;
    const senderEmail = this.senderEmailAt(body.senderEmail, domain);
    // Cheap check first, so a duplicate costs no key generation; the UNIQUE constraint
    // still decides when two requests race.
    if (this.repo.existsInTeam(team, domain)) throw conflict(`${domain} is already a sending domain of this workspace`);

    const key = await this.deps.dkimKeys();
    const ed25519 = body.dkimEd25519 ? await generateEd25519DkimKey() : undefined;
    const now = this.deps.clock.now();
    const id = newId("dom");
    const ownershipToken = randomBase62(32);
    const dkimSelector = `outreach${utcDay(now).replace(/-/g, "")}`;
    // Its own selector: one TXT record per selector, and a receiver picks the key by it.
    const ed25519Selector = ed25519 ? `${dkimSelector}ed` : null;
    const records = plannedRecords({
      domain,
      ownershipToken,
      dkimSelector,
      dkimPublicKey: key.publicKeyBase64,
      ...(ed25519 ? { dkimEd25519: { selector: ed25519Selector!, publicKey: ed25519.publicKeyBase64 } } : {}),
      returnPathTarget: this.deps.config.bounceHost,
      spfInclude: this.deps.config.spfInclude,
    });
    const stamp = now.toISOString();
    const keyring = this.keys.get();
    const row: SendingDomainRow = {
      id,
      team_id: team,
      domain,
      sender_email: senderEmail,
      sender_name: body.senderName,
      status: "pending",
      ownership_token: ownershipToken,
      ownership_verified_at: null,
      dkim_selector: dkimSelector,
      dkim_private_key_ct: keyring.encrypt(key.privateKeyPem, dkimKeyAad({ team_id: team, id })),
      dkim_ed25519_selector: ed25519Selector,
      dkim_ed25519_private_key_ct: ed25519 ? keyring.encrypt(ed25519.privateKeyPem, dkimKeyAad({ team_id: team, id }, DKIM_ED25519_KEY_COLUMN)) : null,
      key_id: keyring.currentId,
      dns_records: JSON.stringify(records),
      dmarc_status: null,
      last_checked_at: null,
      last_error: null,
      created_at: stamp,
      updated_at: stamp,
    };
    try {
      this.deps.db.transaction(() => this.repo.insert(row)).immediate();
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`${domain} is already a sending domain of this workspace`);
      throw err;
    }
    return { success: true };
  }

  list(principal: Principal, teamId: string): SendingDomainList {
    const team = this.activeTeam(principal, teamId);
    const limits = this.plans.limitsForTeam(team);
    const domains = this.repo.forTeam(team).map(toSendingDomain);
    const firstVerified = domains.find((d) => d.status === "verified");
    let holdReason = "";
    if (!limits.customSender) {
      holdReason = `the ${limits.plan} plan does not include sending from custom domains; a plan with custom sender is needed`;
    } else if (!firstVerified) {
      holdReason = domains.length
        ? "no sending domain is verified yet: publish the records in dnsRecords, then verify"
        : "no sending domain has been added yet";
    }
    return {
      domains,
      defaultDomainId: limits.customSender ? (firstVerified?.id ?? null) : null,
      holdReason,
      canManage: isManager(principal.role),
      canUseCustomSender: limits.customSender,
    };
  }

  async verify(principal: Principal, id: string): Promise<{ success: true }> {
    const team = principal.teamId;
    requireManager(principal, "verify a sending domain");
    this.assertCustomSender(team, "verify a sending domain");
    const row = this.repo.byIdInTeam(team, id);
    if (!row) throw notFound(`sending domain ${id} not found`);
    this.takeVerifySlot(row);

    const records = JSON.parse(row.dns_records) as DnsRecord[];
    const find = (purpose: DnsRecord["purpose"]) => records.find((r) => r.purpose === purpose)!;
    const ed25519Record = records.find((r) => r.purpose === "dkim_ed25519");
    // Network first, all lookups at once; the write comes after, in one short transaction.
    const [ownership, dkim, returnPath, spf, dmarc, dkimEd25519] = await Promise.all([
      this.lookup.txt(find("ownership").host).then((a) => checkOwnership(a, find("ownership"))),
      this.lookup.txt(find("dkim").host).then((a) => checkDkim(a, find("dkim"))),
      this.lookup.cname(find("return_path").host).then((a) => checkReturnPath(a, find("return_path"))),
      this.lookup.txt(find("spf").host).then((a) => checkSpf(a, find("spf"), spfIncludeOf(find("spf")))),
      checkDmarc(this.lookup, row.domain, find("dmarc")),
      ed25519Record ? this.lookup.txt(ed25519Record.host).then((a) => checkDkim(a, ed25519Record)) : undefined,
    ]);
    const outcomes: Partial<Record<DnsRecord["purpose"], RecordOutcome>> = { ownership, dkim, return_path: returnPath, spf, dmarc, ...(dkimEd25519 ? { dkim_ed25519: dkimEd25519 } : {}) };

    const now = this.deps.clock.now().toISOString();
    const saved = this.deps.db
      .transaction(() => {
        // Merge into the row as it is now: a concurrent check may have verified more.
        const current = this.repo.byIdInTeam(team, id);
        if (!current) return false;
        const before = JSON.parse(current.dns_records) as DnsRecord[];
        const after = before.map((r) => applyOutcome(r, outcomes[r.purpose]!));
        const temporaryReasons = before
          .filter((r) => r.required && r.status === "verified" && outcomes[r.purpose]!.status === "temporary_failure")
          .map((r) => outcomes[r.purpose]!.error!.replace(/^temporary DNS failure: /, ""));
        const ownershipNow = after.find((r) => r.purpose === "ownership")!.status === "verified";
        return this.repo.saveCheck(team, id, {
          status: domainStatus(after),
          ownership_verified_at: current.ownership_verified_at ?? (ownershipNow ? now : null),
          dns_records: JSON.stringify(after),
          dmarc_status: dmarc.dmarcStatus ?? current.dmarc_status,
          last_checked_at: now,
          last_error: summariseErrors(after, temporaryReasons),
          updated_at: now,
        });
      })
      .immediate();
    if (!saved) throw notFound(`sending domain ${id} not found`);
    return { success: true };
  }

  remove(principal: Principal, id: string): { success: true } {
    requireManager(principal, "remove a sending domain");
    const deleted = this.deps.db.transaction(() => this.repo.delete(principal.teamId, id)).immediate();
    if (!deleted) throw notFound(`sending domain ${id} not found`);
    this.nextVerifyAt.delete(id);
    return { success: true };
  }

  /** The workspace's default sending domain: its oldest verified one (as `defaultDomainId` in the list). */
  defaultDomainId(teamId: string): string | null {
    return this.repo.forTeam(teamId).find((d) => d.status === "verified")?.id ?? null;
  }

  /** Who a domain's messages are from, and whether it may send. */
  sender(teamId: string, id: string): { domain: string; senderEmail: string; senderName: string; status: SendingDomainRow["status"] } | undefined {
    const row = this.repo.byIdInTeam(teamId, id);
    return row && { domain: row.domain, senderEmail: row.sender_email, senderName: row.sender_name, status: row.status };
  }

  /**
   * The decrypted DKIM keys of a workspace's domain, for signing outgoing mail: the RSA
   * key, and the Ed25519 one once the domain opted in and its record is verified (a
   * signature whose key receivers cannot find yet would only fail).
   */
  dkimSigningKey(teamId: string, id: string): DkimSigningKey {
    const row = this.repo.byIdInTeam(teamId, id);
    if (!row) throw notFound(`sending domain ${id} not found`);
    const keyring = this.keys.get();
    const ed25519Verified = (JSON.parse(row.dns_records) as DnsRecord[]).some((r) => r.purpose === "dkim_ed25519" && r.status === "verified");
    return {
      domain: row.domain,
      selector: row.dkim_selector,
      privateKeyPem: keyring.decrypt(row.dkim_private_key_ct, dkimKeyAad(row)),
      ...(row.dkim_ed25519_private_key_ct && row.dkim_ed25519_selector && ed25519Verified
        ? { ed25519: { selector: row.dkim_ed25519_selector, privateKeyPem: keyring.decrypt(row.dkim_ed25519_private_key_ct, dkimKeyAad(row, DKIM_ED25519_KEY_COLUMN)) } }
        : {}),
    };
  }

  /** Endpoints 5 and 6 name the workspace in `teamId`: it must be the caller's active one (docs/api.md), else 403. */
  private activeTeam(principal: Principal, teamId: string): string {
    if (teamId !== principal.teamId) {
      throw forbidden(`teamId ${teamId} is not your active workspace (${principal.teamId}); switch workspaces first or pass the active one`);
    }
    return teamId;
  }

  private assertCustomSender(teamId: string, action: string): void {
    const limits = this.plans.limitsForTeam(teamId);
    if (!limits.customSender) {
      throw forbidden(`the workspace's ${limits.plan} plan does not include custom sending domains: upgrade to a plan with custom sender to ${action}`);
    }
  }

  /** The sender address with its domain normalised; it must be at the domain or below it. */
  private senderEmailAt(email: string, domain: string): string {
    const at = email.lastIndexOf("@");
    const local = email.slice(0, at);
    const emailDomain = domainToASCII(email.slice(at + 1).toLowerCase().replace(/\.$/, ""));
    if (!emailDomain || !isAtOrBelow(emailDomain, domain)) {
      throw badRequest(`invalid body: senderEmail must be an address at ${domain} or a subdomain of it (got one at ${emailDomain || email.slice(at + 1)})`);
    }
    return `${local}@${emailDomain}`;
  }

  private takeVerifySlot(row: SendingDomainRow): void {
    const intervalMs = this.deps.config.domainVerifyIntervalSeconds * 1000;
    if (intervalMs <= 0) return;
    const now = this.deps.clock.now().getTime();
    const next = this.nextVerifyAt.get(row.id) ?? 0;
    if (next > now) {
      const seconds = Math.max(1, Math.ceil((next - now) / 1000));
      throw new AppError("rate_limited", `${row.domain} was checked moments ago; try again in ${seconds} s`, {
        headers: { "retry-after": String(seconds) },
      });
    }
    if (this.nextVerifyAt.size > 10_000) for (const [key, at] of this.nextVerifyAt) if (at <= now) this.nextVerifyAt.delete(key);
    // Taken before the lookups, so concurrent requests cannot all pass.
    this.nextVerifyAt.set(row.id, now + intervalMs);
  }
}

/** The include host fixed in the record at creation (`v=spf1 include:<host> ~all`). */
function spfIncludeOf(record: DnsRecord): string {
  return /include:(\S+)/.exec(record.value)![1]!;
}

export function toSendingDomain(row: SendingDomainRow): SendingDomain {
  const records = JSON.parse(row.dns_records) as DnsRecord[];
  const verified = (purpose: DnsRecord["purpose"]) => records.some((r) => r.purpose === purpose && r.status === "verified");
  return {
    id: row.id,
    domain: row.domain,
    senderEmail: row.sender_email,
    senderName: row.sender_name,
    status: row.status,
    ownershipToken: row.ownership_token,
    ownershipVerifiedAt: row.ownership_verified_at,
    dnsRecords: records,
    dkimVerified: verified("dkim"),
    dkimEd25519: row.dkim_ed25519_private_key_ct !== null,
    dkimEd25519Verified: verified("dkim_ed25519"),
    returnPathVerified: verified("return_path"),
    dmarcStatus: row.dmarc_status as DmarcStatus | null,
    lastCheckedAt: row.last_checked_at,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}

/** DKIM private keys for `outreach admin keys rotate`: re-encrypted under the new key like contacts. */
export function sendingDomainsColumnSet(): EncryptedColumnSet {
  const shape = SENDING_DOMAIN_ENCRYPTED_COLUMNS;
  return columnSetOver(shape, {
    name: "sending domain DKIM keys",
    contextColumns: ["team_id"],
    aad: (row, column) => shape.aad({ team_id: row.team_id!, id: row.id! }, column),
  });
}
