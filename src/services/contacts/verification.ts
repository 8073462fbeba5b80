import type { Clock } from "../../core/clock.js";
import { checkEmailSyntax, isRoleAddress } from "../../core/email-syntax.js";
import { conflict, notFound } from "../../core/errors.js";
import type { Verification, VerificationTally, VerifyBody, VerifyProgress, VerifyResult } from "../../core/schemas/verification.js";
import { NodeDnsLookup, type MailDomainLookup } from "../../providers/dns/resolver.js";
import { isDisposableDomain } from "../../providers/mailbox-probe/disposable-domains.js";
import { MailboxProbe, type ProbeOutcome } from "../../providers/mailbox-probe/mailbox-probe.js";
import { VerificationRepo } from "../../store/contact-verification.js";
import { ContactsRepo, type ContactRow } from "../../store/contacts.js";
import type { Db } from "../../store/db.js";
import { SendingDomainsRepo } from "../../store/sending-domains.js";
import type { ServerConfig } from "../config.js";
import { ContactCipher } from "./contacts-encryption.js";
import type { KeyringSource } from "../keyring-source.js";
import { MailHostResolver, type MailHosts } from "./mail-hosts.js";
import { returnPathHost } from "../sending/outgoing-message.js";
import { probeVerdict, verification, type EarlyChecks, type Verdict } from "./verification-verdict.js";

export interface VerificationServiceDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  keys: KeyringSource;
  /** DNS (tests and the bench pass their own); default: the product's resolver settings. */
  lookup?: MailDomainLookup;
}

export interface VerifyOptions {
  signal?: AbortSignal;
  onProgress?(progress: VerifyProgress): void;
}

/** Contacts read per page of an `all` run: memory stays bounded whatever the workspace's size. */
const PAGE = 500;
/** A domain's queue is probed once it holds this many addresses (20 RCPT batches in one session)... */
const DOMAIN_FLUSH = 1000;
/** ...or when all queues together hold this many (a few hundred bytes each). */
const PENDING_MAX = 5000;
/** Sessions one queue may take when servers hang up part-way (after so many rejections). */
const MAX_SESSIONS = 20;
/** Domains probed at the same time (each still one connection per MX host at a time). */
const PROBE_CONCURRENCY = 8;
const DNS_CONCURRENCY = 16;
/** Greylisting: ask again after at least 5 minutes, at most 3 tries (decisions.md). */
export const RETRY_AFTER_MS = 5 * 60_000;
export const MAX_TRIES = 3;
/** How long a domain's own answer stands for all its addresses. */
const DOMAIN_TTL_MS = { "catch-all": 24 * 3600_000, greylisted: RETRY_AFTER_MS, unreachable: 15 * 60_000 } as const;

/** A contact on its way through the checks. */
interface Item {
  id: string;
  emailCt: string;
  email: string;
  domain: string;
  checks: EarlyChecks;
  hosts: string[];
}

/** One call's state: the tally, the domains' queues, the probes in flight. */
class Run {
  readonly tally: VerificationTally = { deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 };
  checked = 0;
  readonly queues = new Map<string, Item[]>();
  pending = 0;
  readonly inFlight = new Set<Promise<void>>();
  failure: unknown;
  lastProgress = 0;
  constructor(
    readonly teamId: string,
    readonly total: number | null,
    readonly mailFrom: string,
    readonly options: VerifyOptions,
    readonly resolver: MailHostResolver,
  ) {}
}

/**
 * Address verification (docs/api.md, "Address verification"; decisions.md): syntax, DNS,
 * disposable domains, role addresses, then (with `OUTREACH_VERIFY_SMTP=1`) the SMTP
 * probe, one session per domain for many addresses. Each contact's result is written as
 * soon as it is known, in one statement, so an interruption keeps what was done; an `all`
 * run is recorded and a later call continues it.
 */
export class VerificationService {
  private readonly repo: VerificationRepo;
  private readonly contacts: ContactsRepo;
  private readonly cipher: ContactCipher;
  private readonly lookup: MailDomainLookup;
  readonly probe: MailboxProbe | undefined;
  private readonly runningAll = new Set<string>();

  constructor(private readonly deps: VerificationServiceDeps) {
    this.repo = new VerificationRepo(deps.db);
    this.contacts = new ContactsRepo(deps.db);
    this.cipher = new ContactCipher(deps.keys);
    const { config } = deps;
    this.lookup = deps.lookup ?? new NodeDnsLookup({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs, tries: config.dnsTries });
    if (config.verify.smtp) {
      this.probe = new MailboxProbe({
        heloName: config.verify.heloName,
        port: config.verify.port,
        timeoutMs: config.verify.timeoutMs,
        perDomainPerMinute: config.verify.perDomainPerMinute,
        allowCidrs: config.verify.allow,
        addressesOf: async (host) => {
          const answer = await this.lookup.addresses(host);
          if (answer.kind === "found") return answer.records;
          throw new Error(answer.reason);
        },
        clock: deps.clock,
      });
    }
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  /**
   * `POST /api/v1/contacts/verify`, checked before any work (so a streamed answer starts
   * only for a valid call): unknown and other workspaces' ids are the same 404 (no existence
   * oracle); a second `all` run of the workspace while one runs here is a 409.
   */
  accept(teamId: string, body: VerifyBody): { run(options?: VerifyOptions): Promise<VerifyResult> } {
    if (body.contactIds) {
      const ids = [...new Set(body.contactIds)];
      const found = new Set(this.contacts.page({ teamId, ids }, ids.length, 0).map((r) => r.id));
      const missing = ids.find((id) => !found.has(id));
      if (missing !== undefined) throw notFound(`contact ${missing} not found`);
      return {
        run: async (options = {}) => {
          // Read again: a contact deleted meanwhile is simply not verified.
          const rows = this.contacts.page({ teamId, ids }, ids.length, 0);
          const run = this.newRun(teamId, rows.length, options);
          await this.settled(run, () => this.process(run, rows));
          return this.finish(run);
        },
      };
    }
    if (this.runningAll.has(teamId)) throw conflict("a verification of all contacts is already running in this workspace");
    return {
      run: async (options = {}) => {
        if (this.runningAll.has(teamId)) throw conflict("a verification of all contacts is already running in this workspace");
        this.runningAll.add(teamId);
        try {
          return await this.verifyAll(teamId, options);
        } finally {
          this.runningAll.delete(teamId);
        }
      },
    };
  }

  async verify(teamId: string, body: VerifyBody, options: VerifyOptions = {}): Promise<VerifyResult> {
    return this.accept(teamId, body).run(options);
  }

  /** Every contact, page by page in id order; a run left by a killed process is continued, not restarted. */
  private async verifyAll(teamId: string, options: VerifyOptions): Promise<VerifyResult> {
    let startedAt = this.repo.runStartedAt(teamId);
    if (!startedAt) {
      startedAt = this.now();
      this.repo.startRun(teamId, startedAt);
    }
    const run = this.newRun(teamId, this.repo.runRemaining(teamId, startedAt), options);
    await this.settled(run, async () => {
      let afterId = "";
      for (;;) {
        options.signal?.throwIfAborted();
        const rows = this.repo.runPage(teamId, startedAt, afterId, PAGE);
        if (rows.length === 0) break;
        afterId = rows[rows.length - 1]!.id;
        await this.process(run, rows);
      }
    });
    const result = await this.finish(run);
    this.repo.endRun(teamId);
    return result;
  }

  /**
   * Greylisted addresses whose time has come (`serve` calls this every minute while the
   * probe is on; the schedule is in the database, so it survives restarts).
   */
  async retryDue(signal?: AbortSignal): Promise<number> {
    const due = this.repo.dueRetries(this.now(), PAGE);
    const byTeam = new Map<string, string[]>();
    for (const r of due) byTeam.set(r.team_id, [...(byTeam.get(r.team_id) ?? []), r.contact_id]);
    let checked = 0;
    for (const [teamId, ids] of byTeam) {
      const rows = this.contacts.page({ teamId, ids }, ids.length, 0);
      const run = this.newRun(teamId, rows.length, { signal });
      await this.settled(run, () => this.process(run, rows));
      checked += (await this.finish(run)).checked;
    }
    return checked;
  }

  private newRun(teamId: string, total: number, options: VerifyOptions): Run {
    return new Run(teamId, total, this.mailFrom(teamId), options, new MailHostResolver(this.lookup));
  }

  /** Runs `work`; when it fails (an abort), the probes in flight end first, so nothing is written after the call returns. */
  private async settled(run: Run, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      await Promise.allSettled(run.inFlight);
      throw err;
    }
  }

  /** The probe's MAIL FROM: the bounce address of the workspace's oldest verified sending domain, else of the bounce host. */
  private mailFrom(teamId: string): string {
    const domain = new SendingDomainsRepo(this.deps.db).forTeam(teamId).find((d) => d.status === "verified");
    return `bounce+verify@${domain ? returnPathHost(domain.domain) : this.deps.config.bounceHost}`;
  }

  /** One page: DNS for its domains (concurrently), then each contact decided or queued for its domain's probe. */
  private async process(run: Run, rows: readonly ContactRow[]): Promise<void> {
    const items = rows.map((row) => ({ row, syntax: checkEmailSyntax(this.cipher.decryptEmail(row, run.teamId)) }));
    const domains = new Map<string, MailHosts>();
    for (const { syntax } of items) if (syntax.ok) domains.set(syntax.asciiDomain, { kind: "temporary", reason: "not asked" });
    await pool([...domains.keys()], DNS_CONCURRENCY, async (d) => void domains.set(d, await run.resolver.resolve(d)));
    for (const { row, syntax } of items) {
      this.throwIfFailed(run);
      if (!syntax.ok) {
        this.record(run, row.id, row.email_ct, { status: "undeliverable", reason: `invalid address: ${syntax.reason}`, smtp: "skipped" }, { syntax: false, mx: false, disposable: false, role: false });
        continue;
      }
      const checks: EarlyChecks = { syntax: true, mx: false, disposable: isDisposableDomain(syntax.asciiDomain), role: isRoleAddress(syntax.local) };
      const hosts = domains.get(syntax.asciiDomain)!;
      if (hosts.kind === "none") {
        this.record(run, row.id, row.email_ct, { status: "undeliverable", reason: hosts.reason, smtp: "skipped" }, checks);
        continue;
      }
      if (hosts.kind === "temporary") {
        this.record(run, row.id, row.email_ct, { status: "unknown", reason: hosts.reason, smtp: "skipped" }, checks);
        continue;
      }
      checks.mx = true;
      if (checks.disposable) {
        this.record(run, row.id, row.email_ct, { status: "risky", reason: `${syntax.asciiDomain} is a disposable (throwaway) mail domain`, smtp: "skipped" }, checks);
        continue;
      }
      if (!this.probe) {
        this.record(run, row.id, row.email_ct, { status: "unknown", reason: "mailbox not checked (the SMTP probe is off: OUTREACH_VERIFY_SMTP=1 turns it on)", smtp: "skipped" }, checks);
        continue;
      }
      // The address as the server must see it: the local part as written, the domain in ASCII.
      const address = `${syntax.local}@${syntax.asciiDomain}`;
      const cached = this.repo.domainAnswer(syntax.asciiDomain, this.now());
      if (cached) {
        const verdict: Verdict =
          cached.smtp === "catch-all"
            ? { status: "risky", reason: `the domain accepts any address (catch-all, found ${cached.reason}): the mailbox cannot be confirmed`, smtp: "catch-all" }
            : { status: "unknown", reason: cached.reason, smtp: cached.smtp };
        this.record(run, row.id, row.email_ct, verdict, checks);
        continue;
      }
      await this.enqueue(run, { id: row.id, emailCt: row.email_ct, email: address, domain: syntax.asciiDomain, checks, hosts: hosts.hosts });
    }
    this.progress(run, true);
  }

  private async enqueue(run: Run, item: Item): Promise<void> {
    const queue = run.queues.get(item.domain) ?? [];
    queue.push(item);
    run.queues.set(item.domain, queue);
    run.pending++;
    if (queue.length >= DOMAIN_FLUSH) await this.flush(run, item.domain);
    while (run.pending > PENDING_MAX) {
      const largest = [...run.queues.entries()].sort((a, b) => b[1].length - a[1].length)[0]![0];
      await this.flush(run, largest);
    }
  }

  /** Probes one domain's queue (waiting for a free slot first). */
  private async flush(run: Run, domain: string): Promise<void> {
    const items = run.queues.get(domain);
    if (!items?.length) return;
    run.queues.delete(domain);
    run.pending -= items.length;
    while (run.inFlight.size >= PROBE_CONCURRENCY) await Promise.race(run.inFlight);
    this.throwIfFailed(run);
    const job = this.probeDomain(run, domain, items).then(
      () => void run.inFlight.delete(job),
      (err: unknown) => {
        run.inFlight.delete(job);
        run.failure ??= err;
      },
    );
    run.inFlight.add(job);
  }

  /**
   * One domain's queue: a session for all of it; when the server hangs up part-way (many
   * servers end a session after so many rejected RCPTs), the addresses it did not answer go
   * into another session, as long as each one makes progress.
   */
  private async probeDomain(run: Run, domain: string, items: Item[]): Promise<void> {
    let left = items;
    for (let sessions = 1; left.length > 0; sessions++) {
      const outcome = await this.probe!.probe(domain, left[0]!.hosts, [...new Set(left.map((i) => i.email))], run.mailFrom, run.options.signal);
      this.rememberDomain(domain, outcome);
      const resumable = outcome.kind === "answered" && outcome.cutShort !== undefined && outcome.random !== undefined && outcome.recipients.size > 0 && sessions < MAX_SESSIONS;
      const again: Item[] = [];
      for (const item of left) {
        if (resumable && !outcome.recipients.has(item.email)) again.push(item);
        else this.record(run, item.id, item.emailCt, probeVerdict(item.email, outcome), item.checks);
      }
      left = again;
      this.progress(run, false);
    }
  }

  /** What the session said about the domain as a whole stands for its other addresses for a while. */
  private rememberDomain(domain: string, outcome: ProbeOutcome): void {
    const now = this.deps.clock.now().getTime();
    const until = (kind: keyof typeof DOMAIN_TTL_MS) => new Date(now + DOMAIN_TTL_MS[kind]).toISOString();
    if (outcome.kind === "unreachable") this.repo.setDomainAnswer(domain, "unreachable", `no mail server answered: ${outcome.reason}`, until("unreachable"));
    else if (outcome.kind === "greylisted") this.repo.setDomainAnswer(domain, "greylisted", `the mail server deferred the check (greylisting): ${outcome.reason}`, until("greylisted"));
    else if (outcome.random && outcome.random.code >= 200 && outcome.random.code < 300) this.repo.setDomainAnswer(domain, "catch-all", `at ${new Date(now).toISOString()}`, until("catch-all"));
  }

  /**
   * One contact's result, with its retry schedule, in one transaction. A greylisted
   * address is asked again after ≥ 5 minutes, 3 tries in all; then it stays unknown.
   */
  private record(run: Run, contactId: string, emailCt: string, verdict: Verdict, checks: EarlyChecks): void {
    const now = this.deps.clock.now();
    let final = verdict;
    this.deps.db
      .transaction(() => {
        if (verdict.smtp === "greylisted") {
          const tries = this.repo.triesOf(contactId) + 1;
          if (tries < MAX_TRIES) {
            const due = new Date(now.getTime() + RETRY_AFTER_MS).toISOString();
            this.repo.scheduleRetry(run.teamId, contactId, tries, due);
            final = { ...verdict, reason: `${verdict.reason} (try ${tries} of ${MAX_TRIES}; asked again from ${due})` };
          } else {
            this.repo.dropRetry(contactId);
            final = { ...verdict, reason: `${verdict.reason} (deferred on all ${MAX_TRIES} tries)` };
          }
        } else this.repo.dropRetry(contactId);
        const result: Verification = verification(final, checks, now.toISOString());
        // The email changed meanwhile: nothing is written (the change cleared the old result).
        if (!this.repo.write(run.teamId, contactId, emailCt, JSON.stringify(result), result.status, result.checkedAt)) this.repo.dropRetry(contactId);
      })
      .immediate();
    run.tally[final.status]++;
    run.checked++;
  }

  private progress(run: Run, force: boolean): void {
    const at = Date.now();
    if (!run.options.onProgress || (!force && at - run.lastProgress < 250)) return;
    run.lastProgress = at;
    run.options.onProgress({ checked: run.checked, total: run.total, byStatus: { ...run.tally } });
  }

  private throwIfFailed(run: Run): void {
    run.options.signal?.throwIfAborted();
    if (run.failure) throw run.failure;
  }

  /** The queues left, then every probe in flight. */
  private async finish(run: Run): Promise<VerifyResult> {
    try {
      for (const domain of [...run.queues.keys()]) await this.flush(run, domain);
    } finally {
      await Promise.all(run.inFlight);
    }
    this.throwIfFailed(run);
    this.progress(run, true);
    return { checked: run.checked, byStatus: run.tally };
  }
}

/** `work` over `items`, at most `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

