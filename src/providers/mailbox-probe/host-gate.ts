/**
 * The probe's politeness limits, per process: at most one connection per MX host at a time
 * (a queue per host address: MX names of many domains often point to one machine, a
 * hosting provider's, which is protected as a whole), and at most `perDomainPerMinute` connections per recipient domain
 * in any 60-second window (a sliding window: a caller waits for the oldest to age out).
 */
export class HostGate {
  private readonly hostTails = new Map<string, Promise<void>>();
  private readonly domainStarts = new Map<string, number[]>();

  constructor(
    private readonly perDomainPerMinute: number,
    /** The injected clock's time and sleep (tests move time instead of waiting). */
    private readonly now: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {}

  /** Runs `work` holding the host's one connection slot and one of the domain's connections. */
  async withConnection<T>(host: string, domain: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.hostTails.get(host) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.hostTails.set(host, tail);
    try {
      await previous;
      await this.domainSlot(domain, signal);
      return await work();
    } finally {
      release();
      if (this.hostTails.get(host) === tail) this.hostTails.delete(host);
    }
  }

  private async domainSlot(domain: string, signal?: AbortSignal): Promise<void> {
    if (this.perDomainPerMinute <= 0) return;
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      const starts = (this.domainStarts.get(domain) ?? []).filter((t) => t > now - 60_000);
      if (starts.length < this.perDomainPerMinute) {
        starts.push(now);
        this.domainStarts.set(domain, starts);
        return;
      }
      await this.sleep(starts[0]! + 60_000 - now, signal);
    }
  }
}
