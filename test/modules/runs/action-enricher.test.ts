import { ConfigError, loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import type { AppDeps } from '../../../src/app';
import { actionEnricherFor, type ActionEnricher } from '../../../src/modules/runs/run.action-enricher';
import { startFakeOpenAI, type ChatAnswer, type FakeOpenAI, type RecordedChatRequest } from '../../support/fake-openai';
import { createTestApp, type TestApp } from '../../support/app';
import { taskInput } from '../../support/fixtures/debug-run';
import {
  type ToolCallInput,
  RecordActionDocument,
  RecordRunTaskDocument,
  TaskActionsDocument,
  TaskAttemptsDocument,
} from '../../support/generated/graphql';

const GOAL = 'Restore the nightly database backup';
const CALLS: ToolCallInput[] = [
  {
    name: 'search',
    args: { query: 'pg_dump exit code 1' },
    outcome: 'SUCCESS',
    result: 'pg_dump fails when the disk is full',
  },
  // The agent rated this one itself: its insights and relevance are kept, its empty learning is filled.
  {
    name: 'read_file',
    args: { path: 'backup.log' },
    outcome: 'SUCCESS',
    result: 'No space left on device',
    insights: 'the disk is full',
    relevance: 'LOW',
  },
  { name: 'run_backup', args: { target: 's3' }, outcome: 'FAILURE', result: 'exit 1' },
];

/** The model's answer: a note per call naming the tool; relevance in the model's own spelling (normalised on write). */
function enrichmentFor(request: RecordedChatRequest['body']): string {
  const prompt = JSON.parse(request.messages[1].content) as { tool_calls: Array<{ name: string }> };
  return JSON.stringify({
    synthesis: 'found why the backup fails',
    tool_calls: prompt.tool_calls.map((call) => ({
      insights: `model insight on ${call.name}`,
      learning: `model learning on ${call.name}`,
      relevance: { search: ' High ', read_file: 'high', run_backup: 'medium' }[call.name] ?? 'low',
    })),
  });
}

describe('action enrichment (ENRICH_ACTIONS) against a fake OpenAI-compatible endpoint', () => {
  let fake: FakeOpenAI;
  let app: TestApp;
  let enricher: ActionEnricher;
  let answer: (request: RecordedChatRequest['body']) => ChatAnswer | Promise<ChatAnswer>;
  const logs: Array<Record<string, unknown>> = [];
  let taskNumber = 0;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ chat: (request) => answer(request) });
    app = await createTestApp({
      config: { enrichActions: true, openaiApiKey: 'test-key', openaiBaseUrl: fake.baseURL, chatModel: 'fake-chat' },
      logger: createLogger('debug', (line) => logs.push(JSON.parse(line))),
    });
    enricher = actionEnricherFor(app.deps)!;
  });
  afterAll(async () => {
    await enricher.whenIdle();
    await app.close();
    await fake.close();
  });
  beforeEach(() => {
    answer = (request) => ({ kind: 'reply', content: enrichmentFor(request) });
  });

  async function recordRun(): Promise<string> {
    const taskId = `backup-${++taskNumber}`;
    await app.run(RecordRunTaskDocument, { input: taskInput(taskId, GOAL) });
    await app.run(RecordActionDocument, {
      taskId,
      input: { mode: 'FAST', thinking: 'check why pg_dump fails', approach: 'read the logs', toolCalls: CALLS },
    });
    return taskId;
  }
  const readAction = async (taskId: string) => (await app.run(TaskActionsDocument, { id: taskId })).task!.actions[0];

  it('fills insights, learning, relevance and synthesis after recordAction returned, keeping what the agent gave', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    answer = async (request) => {
      await gate;
      return { kind: 'reply', content: enrichmentFor(request) };
    };
    const before = fake.chatRequests.length;
    const taskId = await recordRun();

    // recordAction has answered while the model has not: nothing is filled yet.
    while (fake.chatRequests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    const pending = await readAction(taskId);
    expect(pending.synthesis).toBe('');
    expect(pending.toolCalls.map((call: { insights: string }) => call.insights)).toEqual(['', 'the disk is full', '']);

    release();
    await enricher.whenIdle();
    const action = await readAction(taskId);
    expect(action.synthesis).toBe('found why the backup fails');
    expect(action.toolCalls.map(({ insights, learning, relevance }) => ({ insights, learning, relevance }))).toEqual([
      { insights: 'model insight on search', learning: 'model learning on search', relevance: 'HIGH' },
      { insights: 'the disk is full', learning: 'model learning on read_file', relevance: 'LOW' },
      { insights: 'model insight on run_backup', learning: 'model learning on run_backup', relevance: 'MEDIUM' },
    ]);
    const { task } = await app.run(TaskAttemptsDocument, { id: taskId });
    expect(task!.attempts).toEqual(['model insight on search', 'model insight on run_backup']);

    const request = fake.chatRequests[fake.chatRequests.length - 1];
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.body).toMatchObject({ model: 'fake-chat', response_format: { type: 'json_object' } });
    expect(JSON.parse(request.body.messages[1].content)).toEqual({
      goal: GOAL,
      approach: 'read the logs',
      thinking: 'check why pg_dump fails',
      tool_calls: CALLS.map(({ name, args, outcome, result }) => ({
        name,
        args,
        outcome: outcome.toLowerCase(),
        result,
      })),
    });
  });

  it('retries a 503 and then fills the fields', async () => {
    let calls = 0;
    answer = (request) =>
      ++calls === 1 ? { kind: 'status', status: 503 } : { kind: 'reply', content: enrichmentFor(request) };
    const taskId = await recordRun();
    await enricher.whenIdle();
    expect(calls).toBe(2);
    expect((await readAction(taskId)).synthesis).toBe('found why the backup fails');
  });

  it.each<[string, ChatAnswer, RegExp]>([
    ['an endpoint error', { kind: 'status', status: 400 }, /400/],
    ['an answer that is not JSON', { kind: 'reply', content: 'Sure! Here are the notes.' }, /JSON/],
    [
      'an answer with the wrong number of tool calls',
      { kind: 'reply', content: JSON.stringify({ synthesis: 's', tool_calls: [] }) },
      /0 tool_calls entries for 3/,
    ],
  ])('logs %s and leaves the action as recorded', async (_case, reply, message) => {
    answer = () => reply;
    const taskId = await recordRun();
    await enricher.whenIdle();
    const action = await readAction(taskId);
    expect(action.synthesis).toBe('');
    expect(action.toolCalls[0]).toMatchObject({ insights: '', learning: '', relevance: null });
    const warning = logs.find((line) => line.message === 'action enrichment failed' && line.taskId === taskId);
    expect(warning).toMatchObject({ level: 'warn', iteration: 0 });
    expect(String(warning!.error)).toMatch(message);
  });

  it('sends nothing for an action whose compression fields are all given', async () => {
    const before = fake.chatRequests.length;
    const taskId = `complete-${++taskNumber}`;
    await app.run(RecordRunTaskDocument, { input: taskInput(taskId, GOAL) });
    await app.run(RecordActionDocument, {
      taskId,
      input: {
        mode: 'FAST',
        synthesis: 'done',
        toolCalls: [{ name: 'ls', outcome: 'SUCCESS', insights: 'i', learning: 'l', relevance: 'HIGH' }],
      },
    });
    await enricher.whenIdle();
    expect(fake.chatRequests.length).toBe(before);
  });
});

describe('enrichment wiring and configuration', () => {
  const deps = (env: Record<string, string>, warnings: string[] = []) =>
    ({
      config: loadConfig(env),
      logger: createLogger('warn', (line) => warnings.push(JSON.parse(line).message)),
    }) as unknown as AppDeps;

  it('is off by default, on with ENRICH_ACTIONS=true and a key, and off (with a warning) without a key', () => {
    expect(actionEnricherFor(deps({ OPENAI_API_KEY: 'k' }))).toBeNull();
    const enricher = actionEnricherFor(deps({ ENRICH_ACTIONS: 'true', OPENAI_API_KEY: 'k', CHAT_MODEL: 'llama3.1' }));
    expect(enricher?.model).toBe('llama3.1');
    const warnings: string[] = [];
    expect(actionEnricherFor(deps({ ENRICH_ACTIONS: '1' }, warnings))).toBeNull();
    expect(warnings).toEqual(['ENRICH_ACTIONS is true but OPENAI_API_KEY is not set: actions are not enriched']);
  });

  it('parses ENRICH_ACTIONS and CHAT_MODEL with their defaults', () => {
    expect(loadConfig({})).toMatchObject({ enrichActions: false, chatModel: 'gpt-4o-mini' });
    expect(loadConfig({ ENRICH_ACTIONS: ' TRUE ' }).enrichActions).toBe(true);
    expect(loadConfig({ ENRICH_ACTIONS: '0' }).enrichActions).toBe(false);
    expect(() => loadConfig({ ENRICH_ACTIONS: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ ENRICH_ACTIONS: 'yes' })).toThrow(/ENRICH_ACTIONS.*one of true, false, 1, 0/);
  });

  it('records without enrichment when it is off: no chat request is made', async () => {
    const fake = await startFakeOpenAI();
    const app = await createTestApp({ config: { openaiApiKey: 'k', openaiBaseUrl: fake.baseURL } });
    try {
      await app.run(RecordRunTaskDocument, { input: taskInput('plain', GOAL) });
      await app.run(RecordActionDocument, {
        taskId: 'plain',
        input: { mode: 'FAST', toolCalls: [{ name: 'ls', outcome: 'SUCCESS' }] },
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fake.chatRequests).toHaveLength(0);
    } finally {
      await app.close();
      await fake.close();
    }
  });
});
