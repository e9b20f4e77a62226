/**
 * The per-tool calls both MCP transport tests make, so Streamable HTTP and stdio are held to the same calls and
 * answers.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Db } from 'mongodb';
import { TOOLS } from '../../src/mcp/mcp.tools';
import type { TestApp } from '../support/app';
import { databaseFingerprint } from '../support/fingerprint';
import { callTool, experienceArgs, toolText, toolValue } from '../support/mcp';

/** The caller the MCP test keys `writerA` and `readerA` stand for, with GraphQL's own role check. */
export const ALPHA = { role: 'writer' as const, tenant: 'alpha', keyId: 'test' };

/** A session of tenant alpha with agent `a1`, written through GraphQL, for `append_message` and `get_session`. */
export async function createAlphaSession(app: TestApp, sessionId: string): Promise<void> {
  const session = await app.run(
    `mutation($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }`,
    {
      id: sessionId,
    },
    { caller: ALPHA },
  );
  expect(session.createSession.sessionId).toBe(sessionId);
  await app.run(
    'mutation($id: ID!) { upsertAgent(sessionId: $id, input: { agentId: "a1", agentData: {} }) { agentId } }',
    { id: sessionId },
    { caller: ALPHA },
  );
}

/**
 * Calls every tool once, through `client` as a writer of tenant alpha, checking each answer; `sessionId` names a
 * session from createAlphaSession.
 */
export async function callEveryTool(client: Client, sessionId: string): Promise<void> {
  const called = new Set<string>();
  const value = (name: string, args: Record<string, unknown>) => {
    called.add(name);
    return toolValue(client, name, args);
  };

  const recorded = await value('record_experience', experienceArgs('Create shipment for facility'));
  expect(recorded).toMatchObject({ primaryGoalDescription: 'Create shipment for facility', finalOutcome: 'SUCCESS' });
  const hits = await value('search_experiences', { query: 'shipment facility', limit: 5 });
  expect(hits[0].experience.experienceId).toBe(recorded.experienceId);

  const task = await value('record_task', {
    input: {
      originalQuery: 'ship 3 pallets to Berlin',
      goal: 'Create shipment for facility',
      status: 'COMPLETED',
      context: 'facility_management',
      steps: [{ id: 's1', order: 1, action: 'create_shipment' }],
    },
  });
  const action = await value('record_action', {
    taskId: task.taskId,
    input: { mode: 'FAST', approach: 'direct', toolCalls: [{ name: 'create_shipment', outcome: 'SUCCESS' }] },
  });
  expect(action).toMatchObject({ taskId: task.taskId, action: { iteration: 0 } });
  const learned = await value('learn_from_task', {
    input: {
      taskId: task.taskId,
      status: 'COMPLETED',
      metrics: { executionTime: 2.5, stepsCompleted: 1 },
      insights: ['Check the facility id first'],
    },
  });
  expect(learned).toMatchObject({ success: true, alreadyLearned: false });

  const similar = await value('similar_tasks', { goal: 'Create shipment for facility', minSimilarity: 0 });
  expect(similar.tasks.map((hit: any) => hit.taskId)).toContain(task.taskId);
  const plans = await value('successful_plans', { goal: 'Create shipment for facility', minSuccessRate: 0 });
  expect(plans.count).toBeGreaterThan(0);
  const tool = await value('tool_performance', { toolName: 'create_shipment' });
  expect(tool.totalExecutions).toBeGreaterThan(0);
  const insights = await value('agent_insights', { agentType: 'EXECUTOR' });
  expect(insights.insights.map((insight: any) => insight.insight)).toContain('Check the facility id first');
  const recalled = await value('recall', { query: 'Create shipment for facility', budget: 400 });
  expect(recalled.tokens).toBeLessThanOrEqual(400);
  expect(recalled.text).toContain('## Past experiences');
  expect(recalled.text).toContain('Check the facility id first');
  expect(recalled.items).toContainEqual(expect.objectContaining({ kind: 'EXPERIENCES', id: recorded.experienceId }));
  expect(recalled.items).toContainEqual(expect.objectContaining({ kind: 'PLANS', id: learned.patternId }));

  const message = await value('append_message', {
    sessionId,
    agentId: 'a1',
    input: { role: 'USER', content: [{ text: 'ship it' }] },
  });
  expect(message).toMatchObject({ role: 'USER', text: 'ship it' });
  const read = await value('get_session', { id: sessionId });
  expect(read.agents[0].messages.edges.map((edge: any) => edge.node.text)).toEqual(['ship it']);
  const said = await value('search_messages', { query: 'ship it', filter: { sessionId }, context: 1 });
  expect(said[0]).toMatchObject({ sessionId, agentId: 'a1', message: { text: 'ship it' }, before: [], after: [] });

  const correction = await value('record_experience', experienceArgs('Create shipment for facility via the new API'));
  const superseded = await value('supersede_memory', {
    kind: 'EXPERIENCE',
    id: recorded.experienceId,
    by: correction.experienceId,
    reason: 'the old endpoint is gone',
  });
  expect(superseded).toMatchObject({
    kind: 'EXPERIENCE',
    insight: null,
    experience: {
      experienceId: recorded.experienceId,
      status: 'SUPERSEDED',
      endedReason: 'the old endpoint is gone',
      supersededBy: { experienceId: correction.experienceId },
    },
  });
  const [lesson] = insights.insights;
  const retired = await value('retire_memory', {
    kind: 'INSIGHT',
    id: lesson.id,
    reason: 'facility ids are checked upstream',
  });
  expect(retired).toMatchObject({ kind: 'INSIGHT', experience: null, insight: { id: lesson.id, status: 'RETIRED' } });
  const after = await value('search_experiences', { query: 'shipment facility', limit: 5 });
  const found = after.map((hit: any) => hit.experience.experienceId);
  expect(found).toContain(correction.experienceId);
  expect(found).not.toContain(recorded.experienceId);
  // Forgetting is for admins: these callers are refused (test/modules/forget covers what it erases).
  called.add('forget');
  const forget = await callTool(client, 'forget', { scope: { sessionId }, dryRun: true });
  expect(forget.isError).toBe(true);
  expect(toolText(forget)).toMatch(/^FORBIDDEN: .*admin role/);

  expect([...called].sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
}

/**
 * Bad arguments of each kind (a schema violation, a service's check, an unknown argument, an absent session) give a
 * tool error naming the argument or the cause, and leave tenant alpha's database `db` unchanged.
 */
export async function expectBadArgumentsRefused(client: Client, db: Db): Promise<void> {
  const before = await databaseFingerprint(db);

  const invalid = await callTool(client, 'record_experience', {
    input: { ...experienceArgs('x').input, finalOutcome: 'MAYBE' },
  });
  expect(invalid.isError).toBe(true);
  expect(toolText(invalid)).toMatch(/BAD_USER_INPUT.*\$input.*finalOutcome/);

  const service = await callTool(client, 'search_experiences', { query: 'shipment', limit: 1000 });
  expect(service.isError).toBe(true);
  expect(toolText(service)).toMatch(/^BAD_USER_INPUT at limit: /);

  const budget = await callTool(client, 'recall', { query: 'shipment', budget: 10 });
  expect(budget.isError).toBe(true);
  expect(toolText(budget)).toMatch(/^BAD_USER_INPUT at budget: /);
  const part = await callTool(client, 'recall', { query: 'shipment', include: ['EXPERIENCES', 'SECRETS'] });
  expect(part.isError).toBe(true);
  expect(toolText(part)).toMatch(/BAD_USER_INPUT.*SECRETS.*RecallPart/);

  const extra = await callTool(client, 'record_task', { input: {}, priority: 1 });
  expect(extra.isError).toBe(true);
  expect(toolText(extra)).toMatch(/^BAD_USER_INPUT at priority: /);

  const absent = await callTool(client, 'get_session', { id: 'no-such-session' });
  expect(absent.isError).toBe(true);
  expect(toolText(absent)).toMatch(/^NOT_FOUND/);
  expect(await databaseFingerprint(db)).toEqual(before);
}
