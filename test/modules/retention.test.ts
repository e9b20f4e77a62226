import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from 'mongodb';
import { COLLECTION_INDEXES } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createIndexes, type IndexConfig } from '../../src/db/indexes';
import { AGENT_INSIGHTS_COLLECTION } from '../../src/modules/insights/insight.document';
import { EXPERIENCES_COLLECTION } from '../../src/modules/experiences/experience.document';
import { SESSIONS_COLLECTION } from '../../src/modules/sessions/session.document';
import { TASKS_COLLECTION } from '../../src/modules/tasks/task.document';
import { call, createTestApp, operationName, type OperationCall, type TestApp } from '../support/app';
import { spawnServer } from '../support/build';
import {
  CreateExpiringSessionDocument,
  RecordExpiringExperienceDocument,
  RecordExpiringInsightDocument,
  RecordExpiringTaskDocument,
  RetainedRecordsDocument,
  RetentionDocument,
  ValidateInsightDocument,
} from '../support/generated/graphql';
import { startTtlEngine, type TtlEngine } from '../support/ttl-engine';

const HOUR_MS = 3600_000;

const experienceInput = (experienceId: string) => ({
  experienceId,
  primaryGoalDescription: `Water the greenhouse ferns (${experienceId})`,
  subTaskDescription: 'Check the soil moisture first',
  initiatingAgentId: 'gardener',
  finalOutcome: 'SUCCESS' as const,
});
const taskInput = (taskId: string) => ({
  taskId,
  originalQuery: `prune the apple trees (${taskId})`,
  goal: 'prune the apple trees',
  status: 'COMPLETED' as const,
});
const insightInput = (insight: string) => ({ agentType: 'EXECUTOR' as const, type: 'PATTERNS' as const, insight });

/** The ids each list answers now. */
async function retained(app: TestApp) {
  const data = await app.run(RetainedRecordsDocument, { agentType: 'EXECUTOR' });
  return {
    experiences: data.experiences.edges.map((edge) => edge.node.experienceId).sort(),
    tasks: data.tasks.edges.map((edge) => edge.node.taskId).sort(),
    insights: data.agentInsights.insights.map((insight) => insight.id).sort(),
    sessions: data.sessions.edges.map((edge) => edge.node.sessionId).sort(),
  };
}

/** Waits (up to 10 s: the test engine's TTL pass runs every 100 ms) until `collection` holds none of `ids`. */
async function untilExpired(db: Db, collection: string, field: string, ids: readonly string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await db.collection(collection).countDocuments({ [field]: { $in: [...ids] } })) > 0) {
    if (Date.now() > deadline) throw new Error(`${collection}: ${ids.join(', ')} not expired within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The TTL indexes of a collection: name → expireAfterSeconds. */
async function ttlIndexes(db: Db, collection: string): Promise<Record<string, number>> {
  const indexes = await db.collection(collection).listIndexes().toArray();
  return Object.fromEntries(
    indexes.filter((index) => index.expireAfterSeconds !== undefined).map((i) => [i.name, i.expireAfterSeconds]),
  );
}

describe('retention indexes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const indexConfig = (env: Record<string, string>): IndexConfig => loadConfig(env);

  it('each collection has its per-record expiry index, and a retention index only when a retention is set', async () => {
    expect(await ttlIndexes(app.db, EXPERIENCES_COLLECTION)).toEqual({ expires_at_ttl: 0 });
    expect(await ttlIndexes(app.db, TASKS_COLLECTION)).toEqual({ expires_at_ttl: 0 });
    expect(await ttlIndexes(app.db, AGENT_INSIGHTS_COLLECTION)).toEqual({ expiresAt_ttl: 0 });
    expect(await ttlIndexes(app.db, SESSIONS_COLLECTION)).toEqual({ expires_at_ttl: 0 });
  });

  it('a retention changed between starts moves the existing index (collMod); an unset one drops it', async () => {
    const restart = (env: Record<string, string>) => createIndexes(app.db, indexConfig(env), COLLECTION_INDEXES);
    await restart({
      RETENTION_MESSAGES: '90d',
      RETENTION_EXPERIENCES: '1h',
      RETENTION_TASKS: '2w',
      RETENTION_INSIGHTS: '30m',
    });
    expect(await ttlIndexes(app.db, SESSIONS_COLLECTION)).toEqual({
      expires_at_ttl: 0,
      updated_at_retention: 7_776_000,
    });
    expect(await ttlIndexes(app.db, EXPERIENCES_COLLECTION)).toEqual({ expires_at_ttl: 0, timestamp_retention: 3600 });
    expect(await ttlIndexes(app.db, TASKS_COLLECTION)).toEqual({ expires_at_ttl: 0, createdAt_retention: 1_209_600 });
    expect(await ttlIndexes(app.db, AGENT_INSIGHTS_COLLECTION)).toEqual({
      expiresAt_ttl: 0,
      lastValidated_retention: 1800,
      createdAt_retention: 1800,
    });
    // The SDK's own updated_at index stays as the SDK creates it (no options), so its start finds it unchanged.
    const sessionIndexes = await app.db.collection(SESSIONS_COLLECTION).listIndexes().toArray();
    expect(sessionIndexes.find((index) => index.name === 'updated_at_1')).toEqual({
      v: 2,
      key: { updated_at: 1 },
      name: 'updated_at_1',
    });

    await restart({ RETENTION_MESSAGES: '30d', RETENTION_EXPERIENCES: '2h', RETENTION_INSIGHTS: '45s' });
    expect(await ttlIndexes(app.db, SESSIONS_COLLECTION)).toEqual({
      expires_at_ttl: 0,
      updated_at_retention: 2_592_000,
    });
    expect(await ttlIndexes(app.db, EXPERIENCES_COLLECTION)).toEqual({ expires_at_ttl: 0, timestamp_retention: 7200 });
    expect(await ttlIndexes(app.db, TASKS_COLLECTION)).toEqual({ expires_at_ttl: 0 });
    expect(await ttlIndexes(app.db, AGENT_INSIGHTS_COLLECTION)).toEqual({
      expiresAt_ttl: 0,
      lastValidated_retention: 45,
      createdAt_retention: 45,
    });

    await restart({});
    for (const [collection, expiry] of [
      [SESSIONS_COLLECTION, 'expires_at_ttl'],
      [EXPERIENCES_COLLECTION, 'expires_at_ttl'],
      [TASKS_COLLECTION, 'expires_at_ttl'],
      [AGENT_INSIGHTS_COLLECTION, 'expiresAt_ttl'],
    ]) {
      expect(await ttlIndexes(app.db, collection)).toEqual({ [expiry]: 0 });
    }
  });
});

describe('retention and expiry enforced by the TTL pass', () => {
  let engine: TtlEngine;
  let app: TestApp;
  beforeAll(async () => {
    engine = await startTtlEngine(100);
    const config = loadConfig({
      RETENTION_MESSAGES: '1h',
      RETENTION_EXPERIENCES: '1h',
      RETENTION_TASKS: '1h',
      RETENTION_INSIGHTS: '1h',
    });
    app = await createTestApp({
      databaseUri: engine.uri,
      config: {
        retentionMessages: config.retentionMessages,
        retentionExperiences: config.retentionExperiences,
        retentionTasks: config.retentionTasks,
        retentionInsights: config.retentionInsights,
      },
    });
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
  });

  it('serverInfo.retention gives each collection its retention, variable and the time it counts from', async () => {
    const { serverInfo } = await app.run(RetentionDocument);
    expect(serverInfo.retention).toEqual([
      {
        collection: 'MESSAGES',
        retention: '1h',
        seconds: 3600,
        variable: 'RETENTION_MESSAGES',
        storedIn: 'sessions',
        countsFrom: 'updated_at',
      },
      {
        collection: 'EXPERIENCES',
        retention: '1h',
        seconds: 3600,
        variable: 'RETENTION_EXPERIENCES',
        storedIn: 'eat_agent_experiences',
        countsFrom: 'timestamp',
      },
      {
        collection: 'TASKS',
        retention: '1h',
        seconds: 3600,
        variable: 'RETENTION_TASKS',
        storedIn: 'tasks',
        countsFrom: 'createdAt',
      },
      {
        collection: 'INSIGHTS',
        retention: '1h',
        seconds: 3600,
        variable: 'RETENTION_INSIGHTS',
        storedIn: 'agent_insights',
        countsFrom: 'lastValidated',
      },
    ]);
  });

  it('records older than their retention are deleted, newer ones kept', async () => {
    const old = new Date(Date.now() - 2 * HOUR_MS);
    const oldIso = old.toISOString();
    await app.run(RecordExpiringExperienceDocument, { input: { ...experienceInput('exp-old'), timestamp: oldIso } });
    await app.run(RecordExpiringExperienceDocument, { input: experienceInput('exp-new') });
    await app.run(RecordExpiringTaskDocument, { input: { ...taskInput('task-old'), createdAt: oldIso } });
    await app.run(RecordExpiringTaskDocument, { input: taskInput('task-new') });
    // A session's last activity decides (its messages live in it): one written two hours ago, one now.
    await app.run(CreateExpiringSessionDocument, { input: { sessionId: 'session-old' } });
    await app.run(CreateExpiringSessionDocument, { input: { sessionId: 'session-new' } });
    await app.db
      .collection(SESSIONS_COLLECTION)
      .updateOne({ _id: 'session-old' as never }, { $set: { updated_at: old } });
    // Insights count from their last validation, else from their creation.
    const stale = (await app.run(RecordExpiringInsightDocument, { input: insightInput('never validated, old') }))
      .recordInsight.id;
    const validated = (await app.run(RecordExpiringInsightDocument, { input: insightInput('validated lately') }))
      .recordInsight.id;
    await app.run(ValidateInsightDocument, { id: validated, valid: true });
    await app.db
      .collection(AGENT_INSIGHTS_COLLECTION)
      .updateMany({ insightId: { $in: [stale, validated] } }, { $set: { createdAt: old } });

    await untilExpired(app.db, EXPERIENCES_COLLECTION, 'experience_id', ['exp-old']);
    await untilExpired(app.db, TASKS_COLLECTION, 'taskId', ['task-old']);
    await untilExpired(app.db, SESSIONS_COLLECTION, '_id', ['session-old']);
    await untilExpired(app.db, AGENT_INSIGHTS_COLLECTION, 'insightId', [stale]);
    expect(await retained(app)).toEqual({
      experiences: ['exp-new'],
      tasks: ['task-new'],
      insights: [validated],
      sessions: ['session-new'],
    });
  });

  it('a record written with ttlSeconds or expiresAt is deleted once it passes, and serves its expiresAt', async () => {
    const before = await retained(app);
    const soon = new Date(Date.now() + 1500).toISOString();
    const experience = await app.run(RecordExpiringExperienceDocument, {
      input: { ...experienceInput('exp-ttl'), ttlSeconds: 1 },
    });
    const expiresAt = Date.parse(experience.recordExperience.expiresAt as string);
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 1000);
    const task = await app.run(RecordExpiringTaskDocument, { input: { ...taskInput('task-ttl'), expiresAt: soon } });
    expect(task.recordTask.expiresAt).toBe(soon);
    const insight = await app.run(RecordExpiringInsightDocument, {
      input: { ...insightInput('expires soon'), ttlSeconds: 1 },
    });
    expect(insight.recordInsight.expiresAt).not.toBeNull();
    const session = await app.run(CreateExpiringSessionDocument, {
      input: { sessionId: 'session-ttl', ttlSeconds: 1 },
    });
    expect(session.createSession.expiresAt).not.toBeNull();
    // A record written without one is kept: its expiresAt is null.
    const kept = await app.run(RecordExpiringTaskDocument, { input: taskInput('task-kept') });
    expect(kept.recordTask.expiresAt).toBeNull();

    await untilExpired(app.db, EXPERIENCES_COLLECTION, 'experience_id', ['exp-ttl']);
    await untilExpired(app.db, TASKS_COLLECTION, 'taskId', ['task-ttl']);
    await untilExpired(app.db, AGENT_INSIGHTS_COLLECTION, 'insightId', [insight.recordInsight.id]);
    await untilExpired(app.db, SESSIONS_COLLECTION, '_id', ['session-ttl']);
    expect(await retained(app)).toEqual({ ...before, tasks: [...before.tasks, 'task-kept'].sort() });
  });
});

describe('bad expiry input', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const past = new Date(Date.now() - 60_000).toISOString();
  const later = new Date(Date.now() + HOUR_MS).toISOString();
  const writes = (expiry: Record<string, unknown>): OperationCall[] => [
    call(RecordExpiringExperienceDocument, { input: { ...experienceInput('bad-exp'), ...expiry } }),
    call(RecordExpiringTaskDocument, { input: { ...taskInput('bad-task'), ...expiry } }),
    call(RecordExpiringInsightDocument, { input: { ...insightInput('bad insight'), ...expiry } }),
    call(CreateExpiringSessionDocument, { input: { sessionId: 'bad-session', ...expiry } }),
  ];
  const cases: [string, Record<string, unknown>, string][] = [
    ['both expiresAt and ttlSeconds', { expiresAt: later, ttlSeconds: 60 }, 'input.ttlSeconds'],
    ['expiresAt in the past', { expiresAt: past }, 'input.expiresAt'],
    ['ttlSeconds 0', { ttlSeconds: 0 }, 'input.ttlSeconds'],
    ['ttlSeconds below 0', { ttlSeconds: -5 }, 'input.ttlSeconds'],
  ];

  it.each(cases)('%s is BAD_USER_INPUT naming the field, and nothing is written', async (_name, expiry, field) => {
    for (const { document, variables } of writes(expiry)) {
      const result = await app.execute(document, variables);
      expect({ operation: operationName(document), errors: result.errors?.map((error) => error.extensions) }).toEqual({
        operation: operationName(document),
        errors: [expect.objectContaining({ code: 'BAD_USER_INPUT', field })],
      });
    }
    expect(await app.db.collection(EXPERIENCES_COLLECTION).countDocuments()).toBe(0);
    expect(await app.db.collection(TASKS_COLLECTION).countDocuments()).toBe(0);
    expect(await app.db.collection(AGENT_INSIGHTS_COLLECTION).countDocuments()).toBe(0);
    expect(await app.db.collection(SESSIONS_COLLECTION).countDocuments()).toBe(0);
  });
});

describe('the built server', () => {
  it.each([
    ['RETENTION_MESSAGES', 'forever'],
    ['RETENTION_INSIGHTS', '0d'],
  ])('refuses to start with %s=%s, naming the variable', async (name, value) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-retention-'));
    try {
      const server = spawnServer(dataDir, { [name]: value });
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
      const { code, output } = await server.exited;
      clearTimeout(timer);
      expect(code).toBe(2);
      expect(output).toContain(`Configuration error: Invalid ${name}=`);
      expect(output).toContain('a duration above 0 such as 90d');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
