import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Caller } from '../../../src/auth/caller';
import type { Logger } from '../../../src/logger';
import { createTestApp, type TestApp } from '../../support/app';
import { databaseFingerprint } from '../../support/fingerprint';
import { testTarget } from '../../support/target';
import { seedUser, traces, type Run, type SeededUser } from './seed';

const FORGET = `mutation($scope: ForgetScope!, $dryRun: Boolean) {
  forget(scope: $scope, dryRun: $dryRun) {
    scope dryRun searchEntriesRemoved erasedFromDisk
    counts { collection deleted changed messagesRemoved }
  }
}`;

const NONE = {
  sessions: 0,
  experiences: 0,
  tasks: 0,
  insights: 0,
  evidence: 0,
  patterns: 0,
  tools: 0,
  events: 0,
  idempotency: 0,
};

/** The report's counts by collection. */
function byCollection(report: { counts: Array<{ collection: string }> }): Record<string, object> {
  return Object.fromEntries(report.counts.map(({ collection, ...counts }) => [collection, counts]));
}

describe('forget', () => {
  let app: TestApp;
  let dataDir: string;
  let run: Run;
  const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (message, fields) => logged.push({ message, fields }),
    warn: () => undefined,
    error: () => undefined,
  };

  beforeAll(async () => {
    // The search snapshots forget rewrites go here, not into ./data.
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'forget-test-'));
    app = await createTestApp({ config: { dataDir }, logger });
    run = (query, variables) => app.run(query, variables);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const forget = (scope: Record<string, string>, dryRun = false, caller?: Caller) =>
    app.execute(FORGET, { scope, dryRun }, caller ? { caller } : undefined);

  describe('a user', () => {
    let alice: SeededUser;
    let bob: SeededUser;
    /** Whether each search (every mode of searchExperiences, similarTasks, successfulPlans) finds alice's and bob's. */
    const found = async () => {
      const results: Array<[string, boolean, boolean]> = [];
      for (const mode of ['VECTOR', 'KEYWORD', 'HYBRID']) {
        const hits = await run(
          `query($q: String!, $m: SearchMode!) { searchExperiences(query: $q, mode: $m, limit: 100) { experience { experienceId } } }`,
          { q: 'alicemark bobmark delayed parcel depot', m: mode },
        );
        const ids = hits.searchExperiences.map((hit: any) => hit.experience.experienceId);
        results.push([mode, ids.includes(alice.experienceId), ids.includes(bob.experienceId)]);
      }
      const tasks = await run(
        'query { similarTasks(goal: "alicemark bobmark deliver parcel", minSimilarity: 0, limit: 100) { tasks { taskId } } }',
      );
      const taskIds = tasks.similarTasks.tasks.map((task: any) => task.taskId);
      results.push(['similarTasks', taskIds.includes(alice.taskId), taskIds.includes(bob.taskId)]);
      const plans = await run(
        'query { successfulPlans(goal: "alicemark bobmark deliver parcel", minSuccessRate: 0, limit: 100) { plans { planId } } }',
      );
      const planIds = plans.successfulPlans.plans.map((plan: any) => plan.planId);
      results.push(['successfulPlans', planIds.includes(alice.patternId), planIds.includes(bob.patternId)]);
      return results;
    };
    const SEARCHES = ['VECTOR', 'KEYWORD', 'HYBRID', 'similarTasks', 'successfulPlans'];

    let inHerSession: string;
    beforeAll(async () => {
      alice = await seedUser(run, app.db, 'alice', 'alicemark');
      bob = await seedUser(run, app.db, 'bob', 'bobmark');
      // Recorded in her session without a user: hers too.
      const recorded = await run(
        'mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }',
        {
          input: {
            primaryGoalDescription: 'alicemark in her session',
            subTaskDescription: 'a step',
            initiatingAgentId: 'someone',
            finalOutcome: 'SUCCESS',
            sessionId: alice.sessionId,
          },
        },
      );
      inHerSession = recorded.recordExperience.experienceId;
      // The spaces are built and hold both users before anything is forgotten.
      expect(await found()).toEqual(SEARCHES.map((search) => [search, true, true]));
    });

    it('a dry run counts what would go and changes nothing', async () => {
      const before = await databaseFingerprint(app.db);
      const { data, errors } = await forget({ userId: alice.userId }, true);
      expect(errors).toBeUndefined();
      expect(data!.forget).toMatchObject({ scope: 'USER', dryRun: true, erasedFromDisk: false });
      expect(byCollection(data!.forget)).toEqual({
        // Her agent's two messages and the helper's one.
        sessions: { deleted: 1, changed: 0, messagesRemoved: 3 },
        // Those three messages' entries in the message index.
        message_index: { deleted: 3, changed: 0, messagesRemoved: 0 },
        eat_agent_experiences: { deleted: 2, changed: 0, messagesRemoved: 0 },
        tasks: { deleted: 1, changed: 0, messagesRemoved: 0 },
        agent_insights: { deleted: 2, changed: 0, messagesRemoved: 0 },
        plan_patterns: { deleted: 1, changed: 0, messagesRemoved: 0 },
        tool_performance: { deleted: 0, changed: 1, messagesRemoved: 0 },
        // The created events of her two insights (an experience's is its own document), and the two the fixture adds.
        memory_events: { deleted: 4, changed: 0, messagesRemoved: 0 },
        idempotency_keys: { deleted: 4, changed: 0, messagesRemoved: 0 },
      });
      expect(await databaseFingerprint(app.db)).toEqual(before);
    });

    it("erases the user's memories and what was learned only from them, and leaves another user's intact", async () => {
      const bobBefore = await traces(app.db, bob, 'bobmark');
      expect(Object.values(await traces(app.db, alice, 'alicemark')).every((count) => count > 0)).toBe(true);
      const dry = (await forget({ userId: alice.userId }, true)).data!.forget;

      const { data, errors } = await forget({ userId: alice.userId });
      expect(errors).toBeUndefined();
      // mongod keeps what it deleted in its own files for a while (docs/lifecycle.md): only the engine's are rewritten.
      expect(data!.forget).toMatchObject({ scope: 'USER', dryRun: false, erasedFromDisk: testTarget() === 'embedded' });
      // The dry run said exactly this.
      expect(data!.forget.counts).toEqual(dry.counts);
      expect(data!.forget.searchEntriesRemoved).toBe(dry.searchEntriesRemoved);
      // 2 experiences × 4 experience spaces, 2 task spaces, 1 plan space, 3 messages.
      expect(data!.forget.searchEntriesRemoved).toBe(14);
      expect(await app.db.collection('eat_agent_experiences').countDocuments({ experience_id: inHerSession })).toBe(0);

      expect(await traces(app.db, alice, 'alicemark')).toEqual(NONE);
      expect(await traces(app.db, bob, 'bobmark')).toEqual(bobBefore);
      // Nothing anywhere still quotes her.
      for (const name of [
        'sessions',
        'message_index',
        'eat_agent_experiences',
        'tasks',
        'agent_insights',
        'plan_patterns',
        'tool_performance',
      ]) {
        const all = await app.db.collection(name).find().toArray();
        expect([name, JSON.stringify(all).includes('alicemark')]).toEqual([name, false]);
      }
      // Forgetting again finds nothing.
      const again = (await forget({ userId: alice.userId })).data!.forget;
      expect(again.counts.every((count: any) => count.deleted + count.changed === 0)).toBe(true);
    });

    it('search no longer finds an erased memory in any mode, and still finds the others', async () => {
      expect(await found()).toEqual(SEARCHES.map((search) => [search, false, true]));
    });

    it('logs one audit line with the scope kind, a hash of the value and the counts, never the value', () => {
      const lines = logged.filter((line) => line.message === 'forget');
      expect(lines.length).toBeGreaterThanOrEqual(3);
      const erase = lines.find((line) => line.fields?.dryRun === false)!;
      expect(erase.fields).toMatchObject({
        scope: 'userId',
        scopeHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        counts: expect.objectContaining({ eat_agent_experiences: { deleted: 2, changed: 0, messagesRemoved: 0 } }),
      });
      expect(JSON.stringify(lines)).not.toMatch(/alice/);
    });
  });

  it('a session: the session with all its agents and messages, and the experiences recorded in it', async () => {
    const carol = await seedUser(run, app.db, 'carol', 'carolmark');
    const dave = await seedUser(run, app.db, 'dave', 'davemark');
    const daveBefore = await traces(app.db, dave, 'davemark');
    const insightEvents = () => app.db.collection('memory_events').countDocuments({ memory_id: carol.insightId });
    const insightEventsBefore = await insightEvents();
    expect(insightEventsBefore).toBeGreaterThan(0);
    const { data, errors } = await forget({ sessionId: carol.sessionId });
    expect(errors).toBeUndefined();
    expect(byCollection(data!.forget)).toMatchObject({
      sessions: { deleted: 1, changed: 0, messagesRemoved: 3 },
      message_index: { deleted: 3 },
      eat_agent_experiences: { deleted: 1 },
      tasks: { deleted: 0 },
      // The createSession record, the two keyed appends and the experience's record.
      idempotency_keys: { deleted: 4 },
    });
    const left = await traces(app.db, carol, 'carolmark');
    expect(left).toMatchObject({ sessions: 0, experiences: 0, tasks: 1, patterns: 1 });
    // Her experience's history goes with it; her insight (not of the session) stays.
    expect(await app.db.collection('memory_events').countDocuments({ memory_id: carol.experienceId })).toBe(0);
    expect(await insightEvents()).toBe(insightEventsBefore);
    expect(await traces(app.db, dave, 'davemark')).toEqual(daveBefore);
  });

  it('an agent: its part of every session with its messages, the experiences it initiated, its insights', async () => {
    const erin = await seedUser(run, app.db, 'erin', 'erinmark');
    const frank = await seedUser(run, app.db, 'frank', 'frankmark');
    const frankBefore = await traces(app.db, frank, 'frankmark');
    const { data, errors } = await forget({ agentId: erin.agentId });
    expect(errors).toBeUndefined();
    expect(byCollection(data!.forget)).toMatchObject({
      sessions: { deleted: 0, changed: 1, messagesRemoved: 2 },
      message_index: { deleted: 2 },
      eat_agent_experiences: { deleted: 1 },
      agent_insights: { deleted: 1 },
      // The agent's two keyed appends and its experience's record; the session's creation is not the agent's.
      idempotency_keys: { deleted: 3 },
    });
    const session = await run('query($id: ID!) { session(id: $id) { agents { agentId messageCount } } }', {
      id: erin.sessionId,
    });
    expect(session.session.agents).toEqual([{ agentId: 'helper', messageCount: 1 }]);
    const stored = await app.db.collection('sessions').findOne({ _id: erin.sessionId as never });
    expect(JSON.stringify(stored)).not.toMatch(/erinmark/);
    expect(JSON.stringify(await app.db.collection('message_index').find().toArray())).not.toMatch(/erinmark/);
    expect(await traces(app.db, erin, 'erinmark')).toMatchObject({ experiences: 0, insights: 1, tasks: 1 });
    expect(await traces(app.db, frank, 'frankmark')).toEqual(frankBefore);
  });

  it("a plan pattern another user's task shares keeps its counts, takes that task's goal as example, loses the issue", async () => {
    const learn = async (userId: string, goal: string, status: string, insights: string[]) => {
      const task = await run('mutation($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }', {
        input: { goal, originalQuery: goal, status: 'PAUSED', steps: [{ id: 's1', order: 1, action: 'depot_lookup' }] },
      });
      const taskId = task.recordTask.taskId as string;
      await app.db.collection('tasks').updateOne({ taskId }, { $set: { user_id: userId } });
      const learned = await run(
        'mutation($input: LearnFromTaskInput!) { learnFromTask(input: $input) { patternId } }',
        {
          input: {
            taskId,
            status,
            metrics: { executionTime: 1, stepsCompleted: status === 'FAILED' ? 0 : 1 },
            insights,
          },
        },
      );
      return learned.learnFromTask.patternId as string;
    };
    // The same template (deliver_parcel_for_*) and steps: one pattern, first learned from helen's run.
    const patternId = await learn('helen', 'Deliver parcel for Helenmark', 'FAILED', ['Helenmark wants the depot']);
    expect(await learn('ivan', 'Deliver parcel for Ivan', 'COMPLETED', [])).toBe(patternId);
    const patterns = app.db.collection('plan_patterns');
    expect((await patterns.findOne({ patternId }))!.exampleGoal).toBe('Deliver parcel for Helenmark');

    const { data, errors } = await forget({ userId: 'helen' });
    expect(errors).toBeUndefined();
    expect(byCollection(data!.forget)).toMatchObject({
      tasks: { deleted: 1 },
      agent_insights: { deleted: 1, changed: 0 },
      plan_patterns: { deleted: 0, changed: 1 },
    });
    const pattern = (await patterns.findOne({ patternId }))!;
    expect(pattern).toMatchObject({ exampleGoal: 'Deliver parcel for Ivan', usageCount: 2, failureCount: 1 });
    expect(JSON.stringify(pattern)).not.toMatch(/helenmark/i);
    const ivanTask = await app.db.collection('tasks').findOne({ user_id: 'ivan' });
    expect(pattern.embeddings.goal_embedding).toEqual(ivanTask!.embeddings.goal_embedding);
    const plans = await run(
      'query { successfulPlans(goal: "Deliver parcel for Ivan", minSuccessRate: 0, limit: 100) { plans { planId goal } } }',
    );
    expect(plans.successfulPlans.plans).toContainEqual({ planId: patternId, goal: 'Deliver parcel for Ivan' });
  });

  describe('refuses, changing nothing', () => {
    it.each([
      ['no scope', {}, /none/],
      ['two scopes', { userId: 'u', agentId: 'a' }, /userId and agentId/],
    ])('%s: BAD_USER_INPUT naming scope', async (_, scope, message) => {
      const before = await databaseFingerprint(app.db);
      const { errors } = await forget(scope);
      expect(errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'scope' } });
      expect(errors![0].message).toMatch(message);
      expect(await databaseFingerprint(app.db)).toEqual(before);
    });

    it('a blank or too long id: BAD_USER_INPUT naming it', async () => {
      for (const userId of [' ', 'u'.repeat(201)]) {
        const { errors } = await forget({ userId });
        expect(errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'scope.userId' } });
      }
    });

    it('a writer: FORBIDDEN', async () => {
      await seedUser(run, app.db, 'gina', 'ginamark');
      const before = await databaseFingerprint(app.db);
      const { errors } = await forget({ userId: 'gina' }, false, { role: 'writer', tenant: 'default', keyId: 'w' });
      expect(errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
      expect(await databaseFingerprint(app.db)).toEqual(before);
    });
  });
});
