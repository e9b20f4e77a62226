import { createHash } from 'node:crypto';
import type { Db, Document } from 'mongodb';
import { GraphQLError } from 'graphql';
import { ConflictError, NotFoundError, UnavailableError, ValidationError } from '../../errors';
import { IdempotencyRepository } from './idempotency.repository';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

/** The `idempotencyKey` argument's description in the schema. */
export const IDEMPOTENCY_KEY =
  'A client-chosen key (up to 200 characters) making a retry safe: the same key with the same input returns the first result and writes nothing; with other input it is CONFLICT. Kept IDEMPOTENCY_TTL_HOURS (at least 24 h).';

/**
 * How long an attempt owns its key without renewing it. The attempt renews its lease every third of it while it is
 * writing, so a retry arriving meanwhile waits for it (the first may still be writing, however long it takes); once the
 * lease runs out unrenewed, the attempt is dead (the process crashed between its write and marking the key done) and
 * a retry takes the key over and finishes the plan: a crash delays a retry by at most this long.
 */
export const LEASE_MS = 5_000;
/** A retry waiting this many leases (60 s) for a live attempt answers SERVICE_UNAVAILABLE rather than writing beside it. */
const MAX_WAIT_LEASES = 12;
const POLL_MS = 20;

/** Codes that promise nothing was written: the key is released so that a corrected retry starts afresh. */
const NOTHING_WRITTEN = new Set(['BAD_USER_INPUT', 'NOT_FOUND', 'CONFLICT']);

/** JSON with object keys sorted (and undefined left out), so equal inputs hash alike whatever their key order. */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function inputHash(operation: string, input: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([operation, canonical(input)]))
    .digest('hex');
}

/** A recording mutation made retry-safe by its caller's `idempotencyKey`. */
export interface IdempotentWrite<Plan, Result> {
  key: string | null | undefined;
  operation: string;
  /** The mutation's arguments (without the key): the same key with other input is CONFLICT. */
  input: unknown;
  /** The ids and times this write will use, chosen once and kept with the key. */
  plan: () => Plan;
  /**
   * Writes with `plan` and returns the result. When `resumed`, an earlier attempt with this plan may have written all,
   * part or none of it: write only what is missing and answer as the first attempt would have. When `done`, it wrote
   * all of it: write nothing, and throw `deletedSince()` when what it wrote is gone.
   */
  perform: (plan: Plan, resumed: boolean, done: boolean) => Promise<Result>;
}

/**
 * Idempotency keys of one database (a tenant's keys live in its own database). A retry with a used key and the same
 * input returns the first call's result and writes nothing more; with other input it is CONFLICT.
 */
export class Idempotency {
  private readonly repository: IdempotencyRepository;

  constructor(
    db: Db,
    private readonly ttlHours: number,
    private readonly leaseMs = LEASE_MS,
  ) {
    this.repository = new IdempotencyRepository(db);
  }

  async run<Plan, Result>(write: IdempotentWrite<Plan, Result>): Promise<Result> {
    if (write.key == null) return write.perform(write.plan(), false, false);
    checkKey(write.key);
    const hash = inputHash(write.operation, write.input);
    const { plan, resumed, done, lease } = await this.claim<Plan>(write.key, write.operation, hash, write.plan);
    const heartbeat = this.keepLease(write.key, lease);
    let result: Result;
    try {
      result = await write.perform(plan, resumed, done);
    } catch (error) {
      await heartbeat.stop();
      await this.release(write.key, error).catch(() => undefined);
      throw error;
    }
    await heartbeat.stop();
    // If this update is lost, the key stays pending and a retry finds the write through its plan.
    await this.repository.markDone(write.key).catch(() => undefined);
    return result;
  }

  /** The plan to perform: a new one with the key recorded, or the recorded one once no live attempt holds it. */
  private async claim<Plan>(
    key: string,
    operation: string,
    hash: string,
    newPlan: () => Plan,
  ): Promise<{ plan: Plan; resumed: boolean; done: boolean; lease: Date }> {
    const deadline = Date.now() + MAX_WAIT_LEASES * this.leaseMs;
    for (;;) {
      const now = new Date();
      const plan = newPlan();
      const lease = new Date(now.getTime() + this.leaseMs);
      const claimed = await this.repository.claim({
        _id: key,
        operation,
        input_hash: hash,
        plan,
        state: 'pending',
        lease_until: lease,
        created_at: now,
        expires_at: new Date(now.getTime() + this.ttlHours * 3_600_000),
      });
      if (claimed) return { plan, resumed: false, done: false, lease };
      const record = await this.repository.find<Plan>(key);
      if (!record) continue; // released or expired meanwhile
      if (record.input_hash !== hash) {
        throw new ConflictError(
          `idempotencyKey ${JSON.stringify(key)} was already used with other input (or another mutation).`,
          { idempotencyKey: key },
        );
      }
      if (record.state === 'done') return { plan: record.plan, resumed: true, done: true, lease: record.lease_until };
      if (record.lease_until.getTime() <= now.getTime()) {
        const lease = new Date(now.getTime() + this.leaseMs);
        if (await this.repository.moveLease(key, record.lease_until, lease))
          return { plan: record.plan, resumed: true, done: false, lease };
      } else if (now.getTime() > deadline) {
        throw new UnavailableError(
          `idempotencyKey ${JSON.stringify(key)} is still being written by an earlier call; retry later.`,
          { idempotencyKey: key },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * Renews the lease `lease` of `key` every third of the lease while the attempt writes. A renewal matches only the
   * lease this attempt set last, so it never takes back a key another attempt took over (after a stall longer than
   * the lease). `stop` ends the renewals and waits for one under way, so that it cannot follow markDone or release.
   */
  private keepLease(key: string, lease: Date): { stop: () => Promise<void> } {
    let current = lease;
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(() => {
        const next = new Date(Date.now() + this.leaseMs);
        return this.repository.moveLease(key, current, next).then(
          (renewed) => renewed && (current = next),
          () => undefined, // the next beat tries again; an unrenewed lease only lets a retry take over
        );
      });
    }, this.leaseMs / 3);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await renewing;
      },
    };
  }

  /**
   * After a failed attempt: a coded client error wrote nothing, so the key is forgotten; any other error may have
   * written (the reply was lost), so the key stays with its plan, free for a retry to finish at once.
   */
  private async release(key: string, error: unknown): Promise<void> {
    const code = error instanceof GraphQLError ? error.extensions.code : undefined;
    if (typeof code === 'string' && NOTHING_WRITTEN.has(code)) await this.repository.forget(key);
    else await this.repository.free(key);
  }
}

/** A retry's answer when what the key's first call wrote was deleted since: it is not written again. */
export function deletedSince(): NotFoundError {
  return new NotFoundError('What this idempotencyKey recorded has been deleted since; it is not recorded again.');
}

/**
 * A running total (a tool's counts, an insight's confidence) cannot tell a retried update from a new one, so a keyed
 * write to it is made idempotent in the update itself: the document lists the ids of the keyed writes applied to it,
 * and the update matches only a document whose list lacks the id (`notApplied`) and adds it (`markApplied`), in one
 * atomic step. Only the latest MAX_APPLIED_WRITES are kept: a retry of a crashed write applies again only after that
 * many later keyed writes to the same document (a done key never applies again).
 */
export const MAX_APPLIED_WRITES = 1000;

/** The filter part of a keyed running-total update: the write `writeId` is not applied yet. */
export function notApplied(writeId: string): Document {
  return { appliedWrites: { $ne: writeId } };
}

/** The pipeline stage recording that `writeId` is applied (appended last, the oldest dropped beyond the bound). */
export function markApplied(writeId: string): Document {
  return {
    $set: {
      appliedWrites: {
        $slice: [
          { $concatArrays: [{ $ifNull: ['$appliedWrites', []] }, [{ $literal: writeId }]] },
          -MAX_APPLIED_WRITES,
        ],
      },
    },
  };
}

/** The pipeline stage forgetting `writeId` (its update was undone). */
export function unmarkApplied(writeId: string): Document {
  return {
    $set: {
      appliedWrites: {
        $filter: {
          input: { $ifNull: ['$appliedWrites', []] },
          as: 'id',
          cond: { $ne: ['$$id', { $literal: writeId }] },
        },
      },
    },
  };
}

function checkKey(key: string): void {
  if (key.trim() === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ValidationError(
      `idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, not blank.`,
      'idempotencyKey',
    );
  }
}
