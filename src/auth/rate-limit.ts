interface Bucket {
  tokens: number;
  at: number;
}

/** A loopback client address (IPv4, IPv6 or IPv4-mapped IPv6). */
const LOOPBACK_ADDRESS = /^(?:127\.|::1$|::ffff:127\.)/;

/**
 * Token buckets per caller: each holds up to `perMinute` tokens and refills at `perMinute` a minute; a request takes
 * one. Full buckets are dropped now and then, so the map holds only recently busy callers.
 */
export class RateLimiter {
  // Keys and addresses apart, so that no key id can share an address's bucket.
  private readonly keyBuckets = new Map<string, Bucket>();
  private readonly addressBuckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private lastSweep = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /**
   * {@link take} for a request: a key's bucket, or for a caller without one (anonymous: no key is configured) its
   * address's. Anonymous requests from loopback are not limited: they come from this machine, whose users can read
   * the data files anyway, and limiting them only throttles local agents and benchmarks.
   */
  admit(keyId: string | null | undefined, address: string | undefined): number {
    if (keyId) return this.take(keyId, this.keyBuckets);
    return LOOPBACK_ADDRESS.test(address ?? '') ? 0 : this.take(address ?? '', this.addressBuckets);
  }

  /** Takes a token for `caller`: 0 when granted, else the seconds until one is available (for Retry-After). */
  take(caller: string, buckets: Map<string, Bucket> = this.keyBuckets): number {
    const now = this.now();
    this.sweep(now);
    let bucket = buckets.get(caller);
    if (bucket) bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    else buckets.set(caller, (bucket = { tokens: this.perMinute, at: now }));
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const buckets of [this.keyBuckets, this.addressBuckets]) {
      for (const [caller, bucket] of buckets) {
        if (bucket.tokens + (now - bucket.at) * this.perMs >= this.perMinute) buckets.delete(caller);
      }
    }
  }
}
