import { createTestApp, type TestApp } from '../../support/app';
import { taskInput } from '../../support/fixtures/debug-run';
import {
  type RecordActionInput,
  type ToolCallInput,
  RecordActionDocument,
  RecordRunTaskDocument,
  StuckTasksDocument,
} from '../../support/generated/graphql';

type Call = ToolCallInput;
type Step = Partial<RecordActionInput>;

const READ_CONFIG = (args: Record<string, unknown>): Call => ({
  name: 'read_file',
  args,
  outcome: 'FAILURE',
  result: 'FileNotFoundError',
});

/**
 * Runs and whether they are stuck with minIterations = 3:
 * - looping: progress STUCK in its last 3 iterations (after one ADVANCING) → PROGRESS_STUCK, 3;
 * - retrying: the same failing read_file in its last 4 iterations (arguments in another key order once, another
 *   outcome once) → REPEATED_FAILURE, 4;
 * - both: 3 × STUCK with the same failing call → both reasons;
 * - recovered: STUCK, STUCK, STUCK, then ADVANCING → not stuck;
 * - varied: a failing call each iteration, with other arguments each time → not stuck;
 * - interrupted: the same failing call 3 times but a clean iteration between → not stuck;
 * - short: 2 × STUCK → not stuck at 3, stuck at 2.
 */
const RUNS: Record<string, Step[]> = {
  looping: [{ progress: 'ADVANCING' }, { progress: 'STUCK' }, { progress: 'STUCK' }, { progress: 'STUCK' }],
  retrying: [
    { toolCalls: [{ name: 'search', args: { q: 'config' }, outcome: 'SUCCESS' }] },
    { toolCalls: [READ_CONFIG({ path: 'app.yaml', encoding: 'utf8' })] },
    {
      toolCalls: [
        { name: 'search', args: { q: 'yaml' }, outcome: 'SUCCESS' },
        READ_CONFIG({ encoding: 'utf8', path: 'app.yaml' }),
      ],
    },
    { toolCalls: [{ ...READ_CONFIG({ path: 'app.yaml', encoding: 'utf8' }), outcome: 'TIMEOUT' }] },
    { progress: 'ADVANCING', toolCalls: [READ_CONFIG({ path: 'app.yaml', encoding: 'utf8' })] },
  ],
  both: [1, 2, 3].map(() => ({
    progress: 'STUCK',
    toolCalls: [{ name: 'deploy', args: { env: 'prod' }, outcome: 'ERROR', result: 'exit 1' }],
  })),
  recovered: [{ progress: 'STUCK' }, { progress: 'STUCK' }, { progress: 'STUCK' }, { progress: 'ADVANCING' }],
  varied: [1, 2, 3, 4].map((n) => ({ toolCalls: [READ_CONFIG({ path: `app-${n}.yaml` })] })),
  interrupted: [
    { toolCalls: [READ_CONFIG({ path: 'x.yaml' })] },
    { toolCalls: [READ_CONFIG({ path: 'x.yaml' })] },
    { toolCalls: [{ name: 'search', args: { q: 'x' }, outcome: 'SUCCESS' }] },
    { toolCalls: [READ_CONFIG({ path: 'x.yaml' })] },
  ],
  short: [{ progress: 'STUCK' }, { progress: 'STUCK' }],
};

describe('stuckTasks', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
    for (const [taskId, steps] of Object.entries(RUNS)) {
      await app.run(RecordRunTaskDocument, { input: taskInput(taskId, `Run ${taskId}`) });
      for (const step of steps) await app.run(RecordActionDocument, { taskId, input: { mode: 'FAST', ...step } });
    }
  });
  afterAll(() => app.close());

  const stuck = async (variables: Record<string, unknown> = {}) =>
    (await app.run(StuckTasksDocument, variables)).stuckTasks;

  it('finds the tasks whose last 3 iterations report STUCK or repeat the same failing call, most stuck first', async () => {
    const found = await stuck();
    expect(found.map((entry: { task: { taskId: string } }) => entry.task.taskId)).toEqual([
      'retrying',
      'both',
      'looping',
    ]);
    const [retrying, both, looping] = found;
    expect(retrying).toMatchObject({
      reasons: ['REPEATED_FAILURE'],
      stuckIterations: 4,
      progressStuckIterations: 0,
      repeatedFailure: {
        toolName: 'read_file',
        call: "read_file(path='app.yaml', encoding='utf8') → failure",
        iterations: 4,
      },
      lastIteration: 4,
    });
    expect(both).toMatchObject({
      reasons: ['PROGRESS_STUCK', 'REPEATED_FAILURE'],
      stuckIterations: 3,
      progressStuckIterations: 3,
      repeatedFailure: { toolName: 'deploy', call: "deploy(env='prod') → error", iterations: 3 },
      lastIteration: 2,
    });
    expect(looping).toMatchObject({
      reasons: ['PROGRESS_STUCK'],
      stuckIterations: 3,
      progressStuckIterations: 3,
      repeatedFailure: null,
      lastIteration: 3,
    });
    expect(typeof looping.lastActionAt).toBe('string');
  });

  it('honours minIterations, status and limit', async () => {
    const ids = async (variables: Record<string, unknown>) =>
      (await stuck(variables)).map((entry: { task: { taskId: string } }) => entry.task.taskId);
    expect(await ids({ minIterations: 4 })).toEqual(['retrying']);
    expect(await ids({ minIterations: 5 })).toEqual([]);
    expect((await ids({ minIterations: 2 })).sort()).toEqual(['both', 'looping', 'retrying', 'short']);
    expect(await ids({ limit: 1 })).toEqual(['retrying']);
    expect(await ids({ status: 'COMPLETED' })).toEqual([]);
    expect((await ids({ status: 'PAUSED' })).sort()).toEqual(['both', 'looping', 'retrying']);
    for (const variables of [{ minIterations: 0 }, { limit: 0 }, { limit: 501 }]) {
      expect((await app.execute(StuckTasksDocument, variables)).errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('answers from an index on the run summary', async () => {
    const indexes = await app.db.collection('tasks').indexes();
    expect(indexes.map((index) => index.key)).toContainEqual({ 'run.stuck_iterations': -1, 'run.last_action_at': -1 });
  });
});
