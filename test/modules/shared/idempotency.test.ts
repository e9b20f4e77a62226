import { createTestApp, type TestApp } from '../../support/app';
import { startFailPointEngine, type FailPointEngine } from '../../support/fail-point';
import { databaseFingerprint } from '../../support/fingerprint';
import { crashAfterWrite } from '../../support/idempotency';
import {
  AppendMessagesDocument,
  CreateSessionDocument,
  DeleteSessionDocument,
  RecordExperienceDocument,
  RecordExperiencesDocument,
  RecordTaskDocument,
  UpsertAgentDocument,
  type RecordExperienceInput,
} from '../../support/generated/graphql';
import { MongoClient } from 'mongodb';
import { IDEMPOTENCY_COLLECTION } from '../../../src/modules/shared/idempotency.document';
import { Idempotency } from '../../../src/modules/shared/idempotency';

const EXPERIENCES = 'eat_agent_experiences';

/** A stored document read as it is (string `_id`s). */
type StoredRecord = { _id: string } & Record<string, any>;

function experience(n: number, overrides: Partial<RecordExperienceInput> = {}): RecordExperienceInput {
  return {
    primaryGoalDescription: `Book flight ${n} from London to New York.`,
    subTaskDescription: 'Search British Airways flights.',
    initiatingAgentId: 'agent_booking',
    finalOutcome: 'SUCCESS',
    // Each call is a new recording here, not an occurrence of an earlier one (see test/modules/dedupe).
    dedupe: false,
    ...overrides,
  };
}

const batch = [experience(1), experience(2), experience(3)];

describe('idempotency keys: a retry returns the first result and writes nothing more', () => {
  let engine: FailPointEngine;
  let app: TestApp;
  beforeAll(async () => {
    // Its own engine: the fail point tests below must not fail other test files' commands.
    engine = await startFailPointEngine();
    app = await createTestApp({ databaseUri: engine.uri });
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
  });

  async function newAgent(sessionId: string): Promise<void> {
    await app.run(CreateSessionDocument, { input: { sessionId } });
    await app.run(UpsertAgentDocument, { sessionId, input: { agentId: 'a1', agentData: {} } });
  }

  it('keeps keys in a TTL-indexed collection, for IDEMPOTENCY_TTL_HOURS (24 h by default)', async () => {
    await app.run(RecordExperienceDocument, { input: experience(0), idempotencyKey: 'ttl-key' });
    const indexes = await app.db.collection(IDEMPOTENCY_COLLECTION).indexes();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { expires_at: 1 }, expireAfterSeconds: 0 }));
    const record = await app.db.collection<StoredRecord>(IDEMPOTENCY_COLLECTION).findOne({ _id: 'ttl-key' });
    expect(record!.expires_at.getTime() - record!.created_at.getTime()).toBe(24 * 3_600_000);
  });

  it('recordExperiences retried with the same key returns the same ids and stores nothing more', async () => {
    const first = await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-retry' });
    const before = await databaseFingerprint(app.db);
    const again = await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-retry' });
    expect(again).toEqual(first);
    expect(await databaseFingerprint(app.db)).toEqual(before);
    // Without a key the same input is a new recording.
    const other = await app.run(RecordExperiencesDocument, { inputs: batch });
    expect(other.recordExperiences[0].experienceId).not.toBe(first.recordExperiences[0].experienceId);
  });

  it('concurrent duplicates of one keyed call write once and all answer alike', async () => {
    const count = () => app.db.collection(EXPERIENCES).countDocuments();
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-race' }),
      ),
    );
    expect(await count()).toBe(before + batch.length);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('after a crash between the write and the key record, a retry finds the write instead of repeating it', async () => {
    const first = await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-crash' });
    const ids = first.recordExperiences.map((row) => row.experienceId);
    await crashAfterWrite(app.db, 'exp-crash');
    expect(await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-crash' })).toEqual(first);
    expect(await app.db.collection(EXPERIENCES).countDocuments({ experience_id: { $in: ids } })).toBe(3);

    // A batch cut short (a crash part way through the insert): the retry stores only what is missing.
    await app.db.collection(EXPERIENCES).deleteOne({ experience_id: ids[2] });
    await crashAfterWrite(app.db, 'exp-crash');
    expect(await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-crash' })).toEqual(first);
    expect(await app.db.collection(EXPERIENCES).countDocuments({ experience_id: { $in: ids } })).toBe(3);
  });

  it('the same key with other input, or for another mutation, is CONFLICT and writes nothing', async () => {
    await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-conflict' });
    const before = await databaseFingerprint(app.db);
    const changed = await app.execute(RecordExperiencesDocument, {
      inputs: [experience(1), experience(2), experience(4)],
      idempotencyKey: 'exp-conflict',
    });
    expect(changed.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', idempotencyKey: 'exp-conflict' });
    const otherMutation = await app.execute(RecordExperienceDocument, {
      input: experience(1),
      idempotencyKey: 'exp-conflict',
    });
    expect(otherMutation.errors?.[0].extensions?.code).toBe('CONFLICT');
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it('a rejected call releases its key: nothing is written and the corrected call may use it', async () => {
    const before = await databaseFingerprint(app.db);
    const invalid = await app.execute(RecordExperiencesDocument, {
      inputs: [experience(1), experience(2, { subTaskDescription: ' ' })],
      idempotencyKey: 'exp-invalid',
    });
    expect(invalid.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'inputs[1].subTaskDescription',
    });
    const blankKey = await app.execute(RecordExperiencesDocument, { inputs: batch, idempotencyKey: ' ' });
    expect(blankKey.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'idempotencyKey' });
    expect(await databaseFingerprint(app.db)).toEqual(before);
    const fixed = await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-invalid' });
    expect(fixed.recordExperiences).toHaveLength(3);
  });

  it('a database error during the write leaves nothing behind, and the retry with the key writes once', async () => {
    const before = await databaseFingerprint(app.db);
    await engine.failNext(['insert']);
    const failed = await app.execute(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-fail' });
    expect(failed.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    const after = await databaseFingerprint(app.db);
    expect(after[EXPERIENCES]).toEqual(before[EXPERIENCES]);
    const retried = await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-fail' });
    const ids = retried.recordExperiences.map((row) => row.experienceId);
    expect(await app.db.collection(EXPERIENCES).countDocuments({ experience_id: { $in: ids } })).toBe(3);
    expect((await databaseFingerprint(app.db))[EXPERIENCES].count).toBe(before[EXPERIENCES].count + 3);
  });

  it('appendMessages failed by the database writes nothing; the retry with the key appends once', async () => {
    await newAgent('s-fail');
    const inputs = [{ role: 'USER' as const, content: [{ text: 'hi' }] }];
    const variables = { sessionId: 's-fail', agentId: 'a1', inputs, idempotencyKey: 'm-fail' };
    await engine.failNext(['findAndModify']);
    const failed = await app.execute(AppendMessagesDocument, variables);
    expect(failed.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    const messages = async () =>
      (await app.db.collection<StoredRecord>('sessions').findOne({ _id: 's-fail' }))!.agents.a1.messages ?? [];
    expect(await messages()).toEqual([]);
    await app.run(AppendMessagesDocument, variables);
    await app.run(AppendMessagesDocument, variables);
    expect(await messages()).toHaveLength(1);
  });

  it('recordTask with a key and no taskId: a retry (also after a crash) answers the same task, stored once', async () => {
    const input = { originalQuery: 'Book a flight to Paris', goal: 'book flight', status: 'COMPLETED' as const };
    const first = await app.run(RecordTaskDocument, { input, idempotencyKey: 'task-key' });
    expect(await app.run(RecordTaskDocument, { input, idempotencyKey: 'task-key' })).toEqual(first);
    await crashAfterWrite(app.db, 'task-key');
    expect(await app.run(RecordTaskDocument, { input, idempotencyKey: 'task-key' })).toEqual(first);
    expect(await app.db.collection('tasks').countDocuments({ goal: 'book flight' })).toBe(1);
  });

  it('a retry after what the key recorded was deleted answers NOT_FOUND and does not record it again', async () => {
    const first = await app.run(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-deleted' });
    const ids = first.recordExperiences.map((row) => row.experienceId);
    await app.db.collection(EXPERIENCES).deleteOne({ experience_id: ids[1] });
    const retried = await app.execute(RecordExperiencesDocument, { inputs: batch, idempotencyKey: 'exp-deleted' });
    expect(retried.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(await app.db.collection(EXPERIENCES).countDocuments({ experience_id: { $in: ids } })).toBe(2);

    const input = { sessionType: 'deleted-later' };
    const { createSession } = await app.run(CreateSessionDocument, { input, idempotencyKey: 'session-deleted' });
    await app.run(DeleteSessionDocument, { id: createSession.sessionId });
    const again = await app.execute(CreateSessionDocument, { input, idempotencyKey: 'session-deleted' });
    expect(again.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(await app.db.collection('sessions').countDocuments({ session_type: 'deleted-later' })).toBe(0);
  });

  describe('the lease: a live attempt keeps its key, a dead one loses it within the lease', () => {
    const LEASE = 300;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** A keyed write of one document whose `_id` is planned; `calls` lists how each attempt was performed. */
    const keyedWrite = (key: string, calls: string[], writing: () => Promise<unknown>, db = app.db) => ({
      key,
      operation: 'leaseTest',
      input: { key },
      plan: () => ({ id: `${key}-${calls.length}-${Math.random()}` }),
      perform: async (plan: { id: string }, resumed: boolean, done: boolean) => {
        calls.push(done ? 'done' : resumed ? 'resumed' : 'new');
        if (done) return plan.id;
        if (!(await db.collection('lease_test').findOne({ _id: plan.id as never })))
          await db.collection('lease_test').insertOne({ _id: plan.id as never, key });
        await writing();
        return plan.id;
      },
    });

    /** A retry of a write that stays live: how it ended, how long it waited, and the calls made by then. */
    async function retryBesideLiveWrite() {
      const calls: string[] = [];
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const first = new Idempotency(app.db, 24, LEASE).run(keyedWrite('slow', calls, () => finished));
      await sleep(LEASE / 3);
      const started = Date.now();
      const refused = await new Idempotency(app.db, 24, LEASE)
        .run(keyedWrite('slow', calls, async () => undefined))
        .then(
          (value: unknown) => ({ value }),
          (error: unknown) => ({ error }),
        );
      const outcome = { refused, waited: Date.now() - started, calls: [...calls] };
      finish();
      return { ...outcome, first: await first };
    }
    // Its 12 leases of waiting run from here, beside the other lease cases (other keys), not after them.
    let slow: ReturnType<typeof retryBesideLiveWrite>;
    beforeAll(() => {
      slow = retryBesideLiveWrite();
      slow.catch(() => undefined);
    });
    afterAll(() => slow?.catch(() => undefined));

    it('a write running for many leases keeps its key: a retry waits for it and answers alike, written once', async () => {
      const calls: string[] = [];
      const first = new Idempotency(app.db, 24, LEASE).run(keyedWrite('live', calls, () => sleep(5 * LEASE)));
      await sleep(LEASE / 3);
      const started = Date.now();
      const retry = await new Idempotency(app.db, 24, LEASE).run(keyedWrite('live', calls, async () => undefined));
      expect(Date.now() - started).toBeGreaterThan(4 * LEASE);
      expect(retry).toBe(await first);
      expect(calls).toEqual(['new', 'done']);
      expect(await app.db.collection('lease_test').countDocuments({ key: 'live' })).toBe(1);
    });

    it('a retry waiting 12 leases for a live attempt answers SERVICE_UNAVAILABLE and writes nothing', async () => {
      const { refused, waited, calls, first } = await slow;
      expect(refused).toMatchObject({
        error: { extensions: { code: 'SERVICE_UNAVAILABLE', idempotencyKey: 'slow' } },
      });
      expect(waited).toBeGreaterThanOrEqual(12 * LEASE);
      expect(calls).toEqual(['new']);
      expect(first).toMatch(/^slow-/);
      expect(await app.db.collection('lease_test').countDocuments({ key: 'slow' })).toBe(1);
    });

    it("a dead attempt's key is taken over within the lease and its plan finished once", async () => {
      // The dead process: its own connection, closed after its write, so its lease is never renewed again.
      const dead = new MongoClient(engine.uri);
      const calls: string[] = [];
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      let resume!: () => void;
      const hang = new Promise<void>((resolve) => (resume = resolve));
      const write = keyedWrite('dead', calls, () => (wrote(), hang), dead.db(app.db.databaseName));
      const firstAttempt = new Idempotency(dead.db(app.db.databaseName), 24, LEASE).run(write).catch(() => undefined);
      await written;
      await dead.close(true);
      const started = Date.now();
      const retry = await new Idempotency(app.db, 24, LEASE).run(keyedWrite('dead', calls, async () => undefined));
      expect(Date.now() - started).toBeLessThan(LEASE + 1_000);
      expect(calls).toEqual(['new', 'resumed']);
      expect(await app.db.collection('lease_test').find({ key: 'dead' }).toArray()).toEqual([
        { _id: retry, key: 'dead' },
      ]);
      resume();
      await firstAttempt;
    });
  });
});
