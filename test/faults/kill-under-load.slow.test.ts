/**
 * The built server SIGKILLed (process and engine thread at once) at random moments under concurrent recording
 * writers, and restarted each time. Every writer retries each call that fails or whose connection drops, with the
 * same idempotencyKey, until it succeeds. Afterwards every call is stored exactly once: no loss, no duplicate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '@hindsight/engine';
import { spawnServer, type SpawnedServer } from '../support/build';
import { post } from './data-dir';
import { messageText } from '../../src/modules/sessions/session.type';

const WRITERS = 8;
const KILLS = 3;
/** Calls each writer makes at least; writers go on until the last restart so that every kill lands mid-write. */
const MIN_STEPS = 30;

const CREATE = `mutation($input: CreateSessionInput!, $key: String) {
  createSession(input: $input, idempotencyKey: $key) { sessionId } }`;
const AGENT = `mutation($sessionId: ID!) {
  upsertAgent(sessionId: $sessionId, input: { agentId: "agent", agentData: { model: "m" } }) { agentId } }`;
const APPEND = `mutation($sessionId: ID!, $input: AppendMessageInput!, $key: String) {
  appendMessage(sessionId: $sessionId, agentId: "agent", input: $input, idempotencyKey: $key) { messageId } }`;
const RECORD = `mutation($input: RecordExperienceInput!, $key: String) {
  recordExperience(input: $input, idempotencyKey: $key) { experienceId } }`;

let dir: string;
afterAll(() => rm(dir, { recursive: true, force: true }));

it('3 SIGKILLs under 8 retrying writers: every acknowledged write stored once, none lost', async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-kill-'));
  let server: SpawnedServer = spawnServer(dir);
  let url = server.ready;
  let stopping = false;
  const stats = { calls: 0, retries: 0, slowestMs: 0 };

  /** Sends the call until it succeeds; a dropped connection or an error reply is retried with the same key. */
  async function untilDone(query: string, variables: Record<string, unknown>): Promise<void> {
    stats.calls++;
    const started = Date.now();
    let last: unknown;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        stats.retries++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (attempt > 500) throw new Error(`gave up on ${JSON.stringify(variables)}: ${JSON.stringify(last)}`);
      let reply;
      try {
        reply = await post(await url, query, variables);
      } catch (error) {
        last = String(error); // the connection dropped: the server is gone or restarting
        continue;
      }
      if (!reply.body.errors) {
        stats.slowestMs = Math.max(stats.slowestMs, Date.now() - started);
        return;
      }
      last = reply.body.errors;
      // Only outcomes a retry may fix (the server going away mid-call), never a rejected input.
      expect(reply.body.errors[0].extensions.code).not.toMatch(/BAD_USER_INPUT|CONFLICT|NOT_FOUND/);
    }
  }

  const writer = async (w: number): Promise<{ messages: number; experiences: number }> => {
    const sessionId = `kill-${w}`;
    await untilDone(CREATE, { input: { sessionId }, key: `${sessionId}-create` });
    // Idempotent by its own ids: a repeat sets the same agent data again and keeps the messages.
    await untilDone(AGENT, { sessionId });
    let step = 0;
    let experiences = 0;
    while (!stopping || step < MIN_STEPS) {
      await untilDone(APPEND, {
        sessionId,
        input: { role: 'USER', content: `${sessionId} message ${step}` },
        key: `${sessionId}-m-${step}`,
      });
      if (step % 3 === 0) {
        await untilDone(RECORD, {
          input: {
            initiatingAgentId: 'agent',
            sessionId,
            primaryGoalDescription: 'survive a kill',
            subTaskDescription: `${sessionId} experience ${step}`,
            finalOutcome: 'SUCCESS',
          },
          key: `${sessionId}-e-${step}`,
        });
        experiences++;
      }
      step++;
    }
    return { messages: step, experiences };
  };

  const killer = async (): Promise<void> => {
    for (let round = 0; round < KILLS; round++) {
      await server.ready;
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 900));
      server.child.kill('SIGKILL');
      expect((await server.exited).code).toBeNull();
      server = spawnServer(dir);
      url = server.ready;
    }
    await server.ready;
    stopping = true;
  };

  const [written] = await Promise.all([Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))), killer()]);
  server.child.kill('SIGTERM');
  await server.exited;

  // Read what is on disk, through the engine alone.
  const engine = await startEmbeddedServer({ dataDir: dir, port: 0 });
  const client = await new MongoClient(engine.uri).connect();
  let duplicates = 0;
  let losses = 0;
  try {
    const db = client.db('hindsight');
    for (const [w, { messages, experiences }] of written.entries()) {
      const sessionId = `kill-${w}`;
      expect(await db.collection('sessions').countDocuments({ _id: sessionId as never })).toBe(1);
      const session = await db.collection('sessions').findOne({ _id: sessionId as never });
      const stored = (session!.agents.agent.messages as { message?: { content: unknown }; content?: unknown }[]).map(
        (m) => messageText(m.message?.content ?? m.content),
      );
      const expected = Array.from({ length: messages }, (_, i) => `${sessionId} message ${i}`);
      duplicates += stored.length - new Set(stored).size;
      losses += expected.filter((content) => !stored.includes(content)).length;
      expect(stored).toEqual(expected); // in order, once each, nothing else

      const recorded = await db
        .collection('eat_agent_experiences')
        .find({ session_id: sessionId })
        .map((e) => e.sub_task_description as string)
        .toArray();
      const wanted = Array.from({ length: experiences }, (_, i) => `${sessionId} experience ${i * 3}`);
      duplicates += recorded.length - new Set(recorded).size;
      losses += wanted.filter((text) => !recorded.includes(text)).length;
      expect(recorded.sort()).toEqual(wanted.sort());
    }
  } finally {
    await client.close();
    await engine.close();
  }
  const writes = written.reduce((sum, w) => sum + w.messages + w.experiences + 2, 0);
  console.log(
    `kill under load: ${writes} writes by ${WRITERS} writers, ${KILLS} kills, ${stats.retries} retries, ` +
      `${duplicates} duplicates, ${losses} losses, slowest call ${stats.slowestMs} ms`,
  );
  expect(stats.calls).toBe(writes);
  expect({ duplicates, losses }).toEqual({ duplicates: 0, losses: 0 });
}, 120_000);
