import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from '../../support/app';
import { startFailPointEngine, type FailPointEngine } from '../../support/fail-point';
import { databaseFingerprint } from '../../support/fingerprint';
import {
  AppendMessagesDocument,
  CreateSessionDocument,
  RecordExperiencesDocument,
  RecordToolExecutionsDocument,
  UpsertAgentDocument,
  type RecordExperienceInput,
  type RecordToolExecutionInput,
} from '../../support/generated/graphql';
import { ExperienceRepository } from '../../../src/modules/experiences/experience.repository';
import type { ExperienceDocument } from '../../../src/modules/experiences/experience.document';

function experience(n: number, overrides: Partial<RecordExperienceInput> = {}): RecordExperienceInput {
  return {
    primaryGoalDescription: `Book flight ${n}.`,
    subTaskDescription: 'Search flights.',
    initiatingAgentId: 'agent_booking',
    finalOutcome: 'SUCCESS',
    ...overrides,
  };
}

function execution(toolName: string, overrides: Partial<RecordToolExecutionInput> = {}): RecordToolExecutionInput {
  return { toolName, success: true, durationMs: 120, context: 'search', ...overrides };
}

describe('batches: every item is checked before any write, and a failed write leaves nothing behind', () => {
  let engine: FailPointEngine;
  let app: TestApp;
  beforeAll(async () => {
    // Its own engine: the fail point tests below must not fail other test files' commands.
    engine = await startFailPointEngine();
    app = await createTestApp({ databaseUri: engine.uri });
    await app.run(CreateSessionDocument, { input: { sessionId: 's1' } });
    await app.run(UpsertAgentDocument, { sessionId: 's1', input: { agentId: 'a1', agentData: {} } });
    await app.run(AppendMessagesDocument, {
      sessionId: 's1',
      agentId: 'a1',
      inputs: [{ role: 'USER', content: 'hi' }],
    });
    await app.run(RecordExperiencesDocument, { inputs: [experience(0, { experienceId: 'taken' })] });
    await app.run(RecordToolExecutionsDocument, { inputs: [execution('search'), execution('fetch')] });
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
  });

  const invalid = [
    {
      name: 'recordExperiences, invalid first item',
      run: () =>
        app.execute(RecordExperiencesDocument, {
          inputs: [experience(1, { subTaskDescription: '' }), experience(2), experience(3)],
        }),
      field: 'inputs[0].subTaskDescription',
    },
    {
      name: 'recordExperiences, invalid middle item',
      run: () =>
        app.execute(RecordExperiencesDocument, {
          inputs: [experience(1), experience(2, { version: -1 }), experience(3)],
        }),
      field: 'inputs[1].version',
    },
    {
      name: 'recordExperiences, invalid last item',
      run: () =>
        app.execute(RecordExperiencesDocument, {
          inputs: [experience(1), experience(2), experience(3, { keyDecisionsMade: { $where: 'x' } })],
        }),
      field: 'inputs[2].keyDecisionsMade.$where',
    },
    {
      name: 'appendMessages, invalid last message',
      run: () =>
        app.execute(AppendMessagesDocument, {
          sessionId: 's1',
          agentId: 'a1',
          inputs: [
            { role: 'USER', content: 'a' },
            { role: 'ASSISTANT', content: 'b' },
            { role: 'USER', content: 'c', eventLoopMetrics: { latencyMs: -1 } },
          ],
        }),
      field: 'inputs.2.eventLoopMetrics.latencyMs',
    },
    {
      name: 'recordToolExecutions, invalid middle execution',
      run: () =>
        app.execute(RecordToolExecutionsDocument, {
          inputs: [execution('search'), execution('fetch', { durationMs: -5 }), execution('new_tool')],
        }),
      field: 'inputs.1.durationMs',
    },
  ];

  it.each(invalid)('$name: BAD_USER_INPUT naming the item, database unchanged', async ({ run, field }) => {
    const before = await databaseFingerprint(app.db);
    const result = await run();
    expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it('an experience batch stopped part way by a taken id (a race the pre-check missed) is removed again', async () => {
    const before = await databaseFingerprint(app.db);
    const build = (id: string): ExperienceDocument => ({
      experience_id: id,
      primary_goal_description: 'g',
      sub_task_description: 's',
      initiating_agent_id: 'a',
      involved_components: [],
      key_decisions_made: [],
      final_outcome: 'SUCCESS',
      timestamp: new Date(),
      version: 1,
      tags: [],
    });
    const repository = new ExperienceRepository(app.db);
    await expect(
      repository.insertAll([build(randomUUID()), build('taken'), build(randomUUID())]),
    ).rejects.toMatchObject({ extensions: { code: 'CONFLICT', experienceId: 'taken' } });
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it("recordToolExecutions: when one tool's update fails, the tools already counted are counted back", async () => {
    const figures = async () =>
      (
        await app.db
          .collection('tool_performance')
          .find({}, { projection: { _id: 0, lastUpdated: 0 } })
          .toArray()
      ).sort((a, b) => String(a.toolName).localeCompare(String(b.toolName)));
    const before = await figures();
    // The first tool's update fails; the others (one known, one new, with a new context and error) are applied.
    await engine.failNext(['findAndModify']);
    const result = await app.execute(RecordToolExecutionsDocument, {
      inputs: [
        execution('search'),
        execution('fetch', { success: false, error: 'timeout', context: 'other' }),
        execution('brand_new', { success: false, error: 'boom' }),
      ],
    });
    expect(result.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await figures()).toEqual(before);
  });

  it('an appendMessages failed by the database appends nothing', async () => {
    const before = await databaseFingerprint(app.db);
    await engine.failNext(['findAndModify']);
    const result = await app.execute(AppendMessagesDocument, {
      sessionId: 's1',
      agentId: 'a1',
      inputs: [
        { role: 'USER', content: 'a' },
        { role: 'ASSISTANT', content: 'b' },
      ],
    });
    expect(result.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});
