/**
 * One end user's memories in every collection, written through the API, with the scope fields the API cannot write
 * yet (`user_id`, `userId`, `agentId`: the lifecycle's data contract) set through the driver.
 */
import type { Db } from 'mongodb';
import { MemoryEventRepository } from '../../../src/modules/history/memory-event.repository';

/** What the API answers a GraphQL call with, or throws. */
export type Run = (query: string, variables?: Record<string, unknown>) => Promise<Record<string, any>>;

export interface SeededUser {
  userId: string;
  sessionId: string;
  agentId: string;
  experienceId: string;
  taskId: string;
  patternId: string;
  insightId: string;
  learnedInsightId: string;
}

/**
 * Seeds user `userId`, every text carrying `marker`: a session with two agents (the user's agent `<userId>-agent`,
 * holding the marked messages, and a shared `helper` agent), an experience recorded in it with an idempotency key, a
 * task learned into a plan pattern, tool statistics and an insight (its evidence quoting the task), and an insight
 * scoped to the user with history.
 */
export async function seedUser(run: Run, db: Db, userId: string, marker: string): Promise<SeededUser> {
  const sessionId = `${userId}-session`;
  const agentId = `${userId}-agent`;
  await run(`mutation($id: String!) { createSession(input: { sessionId: $id }, idempotencyKey: $id) { sessionId } }`, {
    id: sessionId,
  });
  for (const agent of [agentId, 'helper']) {
    await run(
      'mutation($s: ID!, $a: String!) { upsertAgent(sessionId: $s, input: { agentId: $a, agentData: {} }) { agentId } }',
      {
        s: sessionId,
        a: agent,
      },
    );
  }
  for (const [i, content] of [`${marker} where is my order`, `${marker} it left yesterday`].entries()) {
    await run(
      `mutation($s: ID!, $a: String!, $c: JSON!, $k: String) {
        appendMessage(sessionId: $s, agentId: $a, input: { role: USER, content: $c }, idempotencyKey: $k) { messageId }
      }`,
      { s: sessionId, a: agentId, c: content, k: `${userId}-append-${i}` },
    );
  }
  await run(
    'mutation($s: ID!) { appendMessage(sessionId: $s, agentId: "helper", input: { role: USER, content: "hello" }) { messageId } }',
    { s: sessionId },
  );
  const experience = await run(
    `mutation($input: RecordExperienceInput!, $k: String) { recordExperience(input: $input, idempotencyKey: $k) { experienceId } }`,
    {
      input: {
        primaryGoalDescription: `${marker} find the delayed parcel`,
        subTaskDescription: `${marker} look the shipment up`,
        initiatingAgentId: agentId,
        finalOutcome: 'SUCCESS',
        outputSummary: `${marker} found at the depot`,
        sessionId,
      },
      k: `${userId}-experience`,
    },
  );
  const task = await run(`mutation($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }`, {
    input: {
      goal: `${marker} deliver parcel`,
      originalQuery: `${marker} where is my parcel`,
      status: 'PAUSED',
      context: `${marker}-context`,
      steps: [{ id: 's1', order: 1, action: 'depot_lookup' }],
    },
  });
  const taskId = task.recordTask.taskId as string;
  const learned = await run(`mutation($input: LearnFromTaskInput!) { learnFromTask(input: $input) { patternId } }`, {
    input: {
      taskId,
      status: 'FAILED',
      metrics: { executionTime: 2, stepsCompleted: 0 },
      insights: [`${marker} check the depot first`],
    },
  });
  const insight = await run(`mutation($input: RecordInsightInput!) { recordInsight(input: $input) { id } }`, {
    input: { agentType: 'EXECUTOR', type: 'PATTERNS', insight: `${marker} the user prefers email` },
  });
  const insightId = insight.recordInsight.id as string;
  const learnedInsight = await db
    .collection('agent_insights')
    .findOne({ 'evidence.taskId': taskId }, { projection: { insightId: 1 } });

  // The scope fields of the data contract, which the API does not write on this branch.
  const experienceId = experience.recordExperience.experienceId as string;
  await db.collection('sessions').updateOne({ _id: sessionId as never }, { $set: { user_id: userId } });
  await db
    .collection('eat_agent_experiences')
    .updateOne({ experience_id: experienceId }, { $set: { user_id: userId } });
  await db.collection('tasks').updateOne({ taskId }, { $set: { user_id: userId } });
  await db.collection('agent_insights').updateOne({ insightId }, { $set: { userId, agentId } });
  await new MemoryEventRepository(db, { keyId: null }).record(
    { kind: 'experience', memory_id: experienceId, event: 'created', user_id: userId, session_id: sessionId },
    { kind: 'insight', memory_id: insightId, event: 'created', user_id: userId, agent_id: agentId },
  );
  return {
    userId,
    sessionId,
    agentId,
    experienceId,
    taskId,
    patternId: learned.learnFromTask.patternId as string,
    insightId,
    learnedInsightId: learnedInsight!.insightId as string,
  };
}

/** How many documents of each collection name the seeded user (any of its ids or its marker). */
export async function traces(db: Db, user: SeededUser, marker: string): Promise<Record<string, number>> {
  const text = new RegExp(marker);
  const count = (name: string, filter: object) => db.collection(name).countDocuments(filter);
  return {
    sessions: await count('sessions', { _id: user.sessionId as never }),
    experiences: await count('eat_agent_experiences', { experience_id: user.experienceId }),
    tasks: await count('tasks', { taskId: user.taskId }),
    insights: await count('agent_insights', { insightId: { $in: [user.insightId, user.learnedInsightId] } }),
    evidence: await count('agent_insights', { 'evidence.taskId': user.taskId }),
    patterns: await count('plan_patterns', { patternId: user.patternId }),
    tools: await count('tool_performance', {
      $or: [{ 'commonErrors.lastTaskId': user.taskId }, { 'contexts.context': text }],
    }),
    events: await count('memory_events', { memory_id: { $in: [user.experienceId, user.insightId] } }),
    idempotency: await count('idempotency_keys', { _id: { $regex: `^${user.userId}-` } as never }),
  };
}
