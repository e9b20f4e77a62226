import fc from 'fast-check';
import { getNamedType, getNullableType, isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MAX_BODY_BYTES } from '../../src/http/body';
import { buildAppSchema } from '../../src/schema';
import { spawnServer, type SpawnedServer } from '../support/build';
import { openTestDatabase, type TestDatabase } from '../support/db';
import { databaseFingerprint } from '../support/fingerprint';
import {
  FUZZ_TIMEOUT_MS,
  LONG_RUN,
  REJECTION_CODES,
  fuzzParameters,
  postOperation,
  postRaw,
  toJson,
  type GraphQLReply,
} from './fuzz-support';
import {
  CI_SIZES,
  HUGE,
  KB,
  cutToBytes,
  LONG_TOKENS,
  MB,
  OTHER_TEXTS,
  STALL_PROBE_PRELOAD,
  StallProbe,
  pathName,
  setAt,
  slotsOf,
  stallBudgetMs,
  valueForSlot,
  type Path,
  type Slot,
} from './hostile-texts';

/**
 * Long tokens (1 KB … 12 MB, ASCII and multi-byte), many short tokens, stacked combining marks, emoji sequences,
 * right-to-left text, 10,000-item lists and Object.prototype's member names, drawn into every text slot of every
 * mutation and of the searches (issue 39); a text a write stored is then searched for. Each case is answered with data
 * or a client's code, a refused write writes nothing, and no case stalls the server's event loop past 100 ms per MB of
 * its body (at least STALL_FLOOR_MS). The server is the build, in a process of its own, measured there
 * (stall-probe.mjs). A test run draws sizes up to 1 MB and runs two 12 MB cases; `npm run fuzz` (FUZZ_LONG=1) runs 20
 * times the cases and draws 12 MB into every slot. The worst stalls against their budgets are printed at the end.
 */

/** reembed starts background work; backupDataDir writes on the host (test/faults/backup-mutation.slow.test.ts). */
const NOT_FUZZED = new Set(['reembed', 'backupDataDir']);
const ADMIN_KEY = 'hs_fuzz_admin_key';
/** The least stall a case is allowed, whatever its size: the machine is shared, and a major GC alone takes tens of ms. */
const STALL_FLOOR_MS = Number(process.env.FUZZ_STALL_FLOOR_MS ?? 200);
/** The database is made afresh once accepted cases have written this much (each case fingerprints it twice). */
const RECYCLE_BYTES = 24 * MB;

/**
 * KNOWN STALLS (issue 39, not fixed yet): cases that stall the server past their budget today. A run prints them and
 * fails on them only with FUZZ_KNOWN_STALLS=1; remove an entry once that run passes without it.
 */
const KNOWN_STALLS: Array<{ matches: (label: string, bytes: number) => boolean; why: string }> = [
  // None today. The two found so far are fixed: an experience text of hundreds of thousands of distinct words (now
  // MAX_TEXT_TERMS of them indexed) and a search query of tens of thousands (MAX_QUERY_WORDS of them analysed).
];
const KNOWN_STALLS_FAIL = process.env.FUZZ_KNOWN_STALLS === '1';

/**
 * Valid arguments of each operation, over the seeded fixtures: a hostile value replaces one slot, so that the rest
 * gets past validation and NOT_FOUND into storage, embedding and search.
 */
function bases(ids: { insightId: string; lifecycleInsights: string[] }): Record<string, Record<string, unknown>> {
  const experience = {
    primaryGoalDescription: 'Plan the quarterly report',
    subTaskDescription: 'Write the summary',
    initiatingAgentId: 'a1',
    finalOutcome: 'SUCCESS',
    inputContextSummary: 'the figures',
    outputSummary: 'a summary',
    sessionId: 's1',
    workflowId: 'w1',
    tags: ['report'],
    involvedComponents: ['writer'],
    keyDecisionsMade: ['chose a table'],
    feedbackSignals: { comment: 'fine', errorType: 'none', extra: { note: 'n' } },
    timestamp: '2025-01-01T00:00:00.000Z',
  };
  const message = { role: 'USER', content: 'hello there' };
  const toolExecution = { toolName: 'tool1', durationMs: 5, success: true, context: 'c', error: 'e', taskId: 't1' };
  return {
    addExperienceFeedback: { id: 'e1', signals: { comment: 'good', errorType: 'none', extra: { k: 'v' } } },
    addFeedback: { sessionId: 's1', input: { comment: 'good', rating: 'UP' } },
    appendMessage: { sessionId: 's1', agentId: 'a1', input: message },
    appendMessages: { sessionId: 's1', agentId: 'a1', inputs: [message] },
    createApiKey: { role: 'reader', tenant: 'default' },
    createSession: { input: { sessionType: 'default', applicationName: 'app', metadata: { tier: 'gold' } } },
    deleteExperience: { id: 'missing-experience' },
    deleteInsight: { id: 'missing-insight' },
    deleteSession: { id: 'missing-session' },
    deleteSessionMetadataKeys: { sessionId: 's1', keys: ['gone'] },
    learnFromTask: {
      input: {
        taskId: 'fresh',
        status: 'COMPLETED',
        metrics: { executionTime: 5, stepsCompleted: 1 },
        insights: ['x'],
      },
    },
    recordAction: {
      taskId: 't1',
      input: {
        mode: 'DEEP',
        thinking: 'think',
        planning: 'plan',
        reflection: 'reflect',
        synthesis: 'sum',
        approach: 'look it up',
        hypothesis: { belief: 'b', test: 't' },
        toolCalls: [
          { name: 'tool1', outcome: 'SUCCESS', result: 'ok', insights: 'i', learning: 'l', args: { q: 'x' } },
        ],
      },
    },
    recordExperience: { input: experience },
    recordExperiences: { inputs: [experience] },
    recordInsight: {
      input: {
        agentType: 'EXECUTOR',
        type: 'PATTERNS',
        insight: 'Retry the flaky tool',
        evidence: [{ taskId: 't1', description: 'd' }],
      },
    },
    recordTask: {
      input: {
        goal: 'Book a flight to Paris',
        originalQuery: 'book me a flight',
        status: 'COMPLETED',
        context: 'travel',
        planId: 'p1',
        steps: [{ action: 'tool1', id: 'step-1' }],
      },
    },
    recordToolExecution: { input: toolExecution },
    recordToolExecutions: { inputs: [toolExecution] },
    revokeApiKey: { id: 'missing-key' },
    updateExperience: { id: 'e1', input: { outputSummary: 'changed' } },
    updateMessage: { sessionId: 's1', agentId: 'a1', messageId: 0, input: { content: 'redacted' } },
    updateSessionMetadata: { sessionId: 's1', metadata: { tier: 'silver' } },
    upsertAgent: { sessionId: 's1', input: { agentId: 'a1', agentData: { model: 'm' } } },
    validateInsight: { id: ids.insightId, valid: true },
    // The lifecycle: the first accepted supersede or retire ends its fixture; later cases answer CONFLICT.
    supersedeExperience: { id: 'e-old', by: 'e-new', reason: 'replaced' },
    retireExperience: { id: 'e-retired', reason: 'no longer true' },
    supersedeInsight: { id: ids.lifecycleInsights[0], by: ids.lifecycleInsights[1], reason: 'replaced' },
    retireInsight: { id: ids.lifecycleInsights[2], reason: 'no longer true' },
    supersedeMemory: { kind: 'EXPERIENCE', id: 'm-old', by: 'm-new', reason: 'replaced' },
    retireMemory: { kind: 'EXPERIENCE', id: 'm-retired', reason: 'no longer true' },
    forget: { scope: { userId: 'fuzz-user' }, dryRun: true },
    // The searches.
    searchExperiences: { query: 'quarterly report', filter: { tagsAny: ['report'] } },
    similarTasks: { query: 'book a flight', goal: 'Book a flight', minSimilarity: 0 },
    successfulPlans: { goal: 'Book a flight', minSuccessRate: 0 },
    searchMessages: { query: 'hello', filter: { sessionId: 's1', role: 'user' }, limit: 5, context: 1 },
    toolPerformance: { toolName: 'search_flights', similarTo: 'book a flight', k: 5, context: 'travel' },
    recall: { query: 'book a flight', scope: { userId: 'fuzz-user', agentId: 'a1', sessionId: 's1' }, budget: 500 },
  };
}

const SEARCHES = [
  'searchExperiences',
  'similarTasks',
  'successfulPlans',
  'searchMessages',
  'toolPerformance',
  'recall',
];
/** The stored text is searched for by its first 100 KB (the issue's search target); see also the 512 KB test below. */
const SEARCH_QUERY_BYTES = 100 * KB;
/** The search that finds what a mutation stored: an accepted text is searched for at once. */
const SEARCH_AFTER: Record<string, string> = {
  recordExperience: 'searchExperiences',
  recordExperiences: 'searchExperiences',
  updateExperience: 'searchExperiences',
  recordTask: 'similarTasks',
  appendMessage: 'searchMessages',
};
const SELECTIONS: Record<string, string> = {
  searchExperiences: '{ score experience { experienceId } }',
  similarTasks: '{ count tasks { taskId } }',
  successfulPlans: '{ count plans { planId } }',
  searchMessages: '{ score message { messageId } before { messageId } }',
  toolPerformance: '{ totalExecutions commonErrors { error } }',
  recall: '{ tokens items { kind id } }',
};

/** `mutation Fuzz($a: T!, …) { name(a: $a, …) { __typename } }`, every argument a variable. */
function operationText(kind: 'mutation' | 'query', field: GraphQLField<unknown, unknown>): string {
  // An argument with a default is declared nullable, so that a variable left out takes the default.
  const declarations = field.args
    .map((arg) => `$${arg.name}: ${String(arg.defaultValue === undefined ? arg.type : getNullableType(arg.type))}`)
    .join(', ');
  const passing = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = SELECTIONS[field.name] ?? (isObjectType(getNamedType(field.type)) ? '{ __typename }' : '');
  return `${kind} Fuzz(${declarations}) { ${field.name}(${passing}) ${selection} }`;
}

interface Case {
  operation: string;
  kind: 'mutation' | 'query';
  query: string;
  slot: Slot;
  base: Record<string, unknown>;
  shape: string;
  value: unknown;
  /** searchExperiences' mode, when not the default. */
  mode?: string;
  /** Another value of the same shape, for measuring again (the same text again would find its words indexed). */
  again?: () => unknown;
}

interface Outcome {
  label: string;
  bytes: number;
  ms: number;
  stallMs: number;
  budgetMs: number;
  answer: string;
}

describe('fuzz: hostile texts in every text field, answered without a stall', () => {
  let server: SpawnedServer;
  let database: TestDatabase;
  let url: string;
  let probe: StallProbe;
  let schema: GraphQLSchema;
  let operationBases: Record<string, Record<string, unknown>>;
  let acceptedBytes = 0;
  let taskCount = 0;
  const outcomes: Outcome[] = [];
  const knownStalls: string[] = [];
  const figures = { cases: 0, accepted: 0, refused: 0, remeasured: 0, servers: 0 };

  const ok = async (query: string, variables: Record<string, unknown> = {}) => {
    const reply = await postOperation(url, query, variables, ADMIN_KEY);
    if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors).slice(0, 2000));
    return reply.body.data as Record<string, any>;
  };

  /**
   * The built server as users run it (its own process, measured there) on a fresh database of the run's engine, which
   * the test reads to fingerprint; with the fixtures the bases name.
   */
  async function open(): Promise<void> {
    database = await openTestDatabase();
    server = spawnServer(await mkdtemp(path.join(os.tmpdir(), 'hindsight-hostile-')), {
      MONGODB_URI: database.uri,
      MONGODB_DB: database.db.databaseName,
      API_KEYS: ADMIN_KEY,
      RATE_LIMIT_PER_MIN: '0',
      MAX_QUERY_COST: '1000000000',
      // The opt-in message index: hostile texts reach searchMessages and its index too.
      MESSAGE_INDEX: 'true',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${STALL_PROBE_PRELOAD}`.trim(),
      // FUZZ_SERVER_PROFILE=<file>: the server's CPU profile, to find where a stall went.
      ...(process.env.FUZZ_SERVER_PROFILE ? { STALL_PROBE_PROFILE: process.env.FUZZ_SERVER_PROFILE } : {}),
    });
    url = await server.ready;
    probe = StallProbe.fromOutput(server.output());
    figures.servers += 1;
    await ok(`mutation { createSession(input: { sessionId: "s1" }) { sessionId } }`);
    await ok(`mutation { upsertAgent(sessionId: "s1", input: { agentId: "a1", agentData: {} }) { agentId } }`);
    await ok(
      `mutation { appendMessage(sessionId: "s1", agentId: "a1", input: { role: USER, content: "hi" }) { messageId } }`,
    );
    await ok(`mutation { recordExperience(input: { experienceId: "e1", primaryGoalDescription: "Plan the quarterly report",
      subTaskDescription: "s", initiatingAgentId: "a1", finalOutcome: SUCCESS, tags: ["report"] }) { experienceId } }`);
    for (const id of ['e-old', 'e-new', 'e-retired', 'm-old', 'm-new', 'm-retired'])
      await ok(`mutation { recordExperience(input: { experienceId: "${id}", primaryGoalDescription: "Close the ${id} books",
        subTaskDescription: "s", initiatingAgentId: "a1", finalOutcome: SUCCESS, userId: "fuzz-user" }) { experienceId } }`);
    await ok(`mutation { recordTask(input: { taskId: "t1", goal: "Book a flight", originalQuery: "q", status: COMPLETED,
      steps: [{ action: "tool1" }] }) { taskId } }`);
    await ok(
      `mutation { learnFromTask(input: { taskId: "t1", status: COMPLETED, metrics: { executionTime: 5, stepsCompleted: 1 } }) { success } }`,
    );
    const insight = await ok(
      `mutation { recordInsight(input: { agentType: EXECUTOR, type: PATTERNS, insight: "i" }) { id } }`,
    );
    await ok(
      `mutation { recordToolExecution(input: { toolName: "tool1", durationMs: 5, success: true }) { toolName } }`,
    );
    const lifecycleInsights: string[] = [];
    for (const text of ['old lesson', 'new lesson', 'retired lesson'])
      lifecycleInsights.push(
        (
          await ok(
            `mutation { recordInsight(input: { agentType: EXECUTOR, type: PATTERNS, insight: "${text}" }) { id } }`,
          )
        ).recordInsight.id,
      );
    operationBases = bases({ insightId: insight.recordInsight.id, lifecycleInsights });
    acceptedBytes = 0;
  }

  async function close(): Promise<void> {
    server.child.kill('SIGTERM');
    const { code, signal } = await server.exited;
    await database.close();
    if (code !== 0) throw new Error(`the server ended with ${code ?? signal}:\n${server.output().slice(-3000)}`);
  }

  beforeAll(async () => {
    schema = await buildAppSchema();
    await open();
  }, 60_000);
  afterAll(async () => {
    const worst = [...outcomes].sort((a, b) => b.stallMs / b.budgetMs - a.stallMs / a.budgetMs).slice(0, 8);
    const total = outcomes.reduce((sum, o) => sum + o.ms, 0);
    console.log(
      `hostile texts: ${JSON.stringify(figures)}, ${(total / 1000).toFixed(1)} s in requests; worst stalls (of budget):\n` +
        worst
          .map(
            (o) =>
              `  ${o.stallMs.toFixed(0)} / ${o.budgetMs.toFixed(0)} ms stall, ${o.ms} ms, ${(o.bytes / MB).toFixed(2)} MB: ${o.label} → ${o.answer}`,
          )
          .join('\n') +
        (knownStalls.length
          ? `\nKNOWN STALLS (issue 39; FUZZ_KNOWN_STALLS=1 fails on them):\n  ${knownStalls.join('\n  ')}`
          : ''),
    );
    await close();
  }, 30_000);

  /** Every (operation, slot) pair of the schema, with the operation's base; fails on an operation without a base. */
  function allSlots(): Array<Omit<Case, 'shape' | 'value'>> {
    const fields: Array<['mutation' | 'query', GraphQLField<unknown, unknown>]> = [
      ...Object.values(schema.getMutationType()!.getFields())
        .filter((field) => !NOT_FUZZED.has(field.name))
        .map((field) => ['mutation', field] as ['mutation', GraphQLField<unknown, unknown>]),
      ...SEARCHES.map(
        (name) => ['query', schema.getQueryType()!.getFields()[name]] as ['query', GraphQLField<unknown, unknown>],
      ),
    ];
    const missing = fields.filter(([, field]) => !operationBases[field.name]).map(([, field]) => field.name);
    if (missing.length) throw new Error(`no base arguments for ${missing.join(', ')}: add them to bases()`);
    return fields.flatMap(([kind, field]) =>
      slotsOf(field).map((slot) => ({
        operation: field.name,
        kind,
        query: operationText(kind, field),
        slot,
        base: operationBases[field.name],
      })),
    );
  }

  /** Runs one case: checks its answer, that a refusal wrote nothing, and the longest stall against the budget. */
  async function runCase(one: Case, mayRemeasure = true): Promise<void> {
    const label = `${one.operation}${one.mode ? ` (${one.mode})` : ''} ${pathName(one.slot.path)} = ${one.shape}`;
    // The bases of the server running now (a fresh database has its own insight id).
    const variables = structuredClone(operationBases[one.operation]);
    setAt(variables, one.slot.path, one.value);
    if (one.mode) variables.mode = one.mode;
    if (one.operation === 'learnFromTask' && pathName(one.slot.path) !== 'input.taskId') {
      // A task is learned once: each case learns a task of its own.
      const taskId = `learn-${++taskCount}`;
      await ok(`mutation { recordTask(input: { taskId: "${taskId}", goal: "Book a flight", originalQuery: "q",
        status: COMPLETED, steps: [{ action: "tool1" }] }) { taskId } }`);
      (variables.input as Record<string, unknown>).taskId = taskId;
    }
    const body = Buffer.from(toJson({ query: one.query, variables }), 'utf8');
    figures.cases += 1;
    const before = one.kind === 'mutation' ? await databaseFingerprint(database.db) : null;

    const logged = server.output().length;
    await probe.start();
    const started = Date.now();
    const reply: GraphQLReply = await postRaw(url, body, 'application/json', ADMIN_KEY);
    const ms = Date.now() - started;
    const errors = reply.body.errors ?? [];
    const answer = errors.length
      ? `${reply.status} ${errors.map((e) => `${e.extensions?.code}${e.extensions?.field ? ` (${e.extensions.field})` : ''}`).join(', ')}`
      : `${reply.status} data`;
    // A refused write leaves the database as it was (read from the engine: the server is idle meanwhile).
    const after = before && errors.length ? await databaseFingerprint(database.db) : null;
    // Work the request left behind (indexing a write's change event, collecting its garbage) counts as its own.
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, 20 + (40 * body.length) / MB)));
    const stallMs = await probe.stop();
    const budgetMs = stallBudgetMs(body.length, STALL_FLOOR_MS);
    outcomes.push({ label, bytes: body.length, ms, stallMs, budgetMs, answer });
    if (process.env.FUZZ_DEBUG) {
      console.log(`${stallMs.toFixed(0)} ms stall, ${ms} ms, ${body.length} bytes: ${label} → ${answer}`);
    }

    const faults = errors.filter((error) => !REJECTION_CODES.has(error.extensions?.code));
    if (faults.length || reply.status >= 500) {
      throw new Error(
        `${label}: HTTP ${reply.status}, not a client error: ${JSON.stringify(faults).slice(0, 1500)}\nlogged: ${server.output().slice(logged).slice(0, 2000)}`,
      );
    }
    for (const error of errors.filter((e) => e.extensions?.code === 'BAD_USER_INPUT')) {
      // A refused input is named: by the server's field, or by graphql-js's variable path.
      const named = typeof error.extensions?.field === 'string' || /(Variable|Argument) "\$?\w+"/.test(error.message);
      if (!named) throw new Error(`${label}: BAD_USER_INPUT naming no field: ${error.message.slice(0, 300)}`);
    }
    if (errors.length) {
      figures.refused += 1;
      if (after && JSON.stringify(after) !== JSON.stringify(before)) {
        throw new Error(
          `${label} was refused (${answer}) yet wrote:\nbefore ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`,
        );
      }
    } else {
      if (!reply.body.data) throw new Error(`${label}: neither data nor errors`);
      figures.accepted += 1;
      if (one.kind === 'mutation') acceptedBytes += body.length;
    }
    const known = KNOWN_STALLS.find((entry) => entry.matches(label, body.length));
    if (stallMs > budgetMs && known && !KNOWN_STALLS_FAIL) {
      knownStalls.push(`${label}: ${stallMs.toFixed(0)} ms (budget ${budgetMs.toFixed(0)} ms): ${known.why}`);
    } else if (stallMs > budgetMs) {
      const stall = `${label}: the event loop stalled ${stallMs.toFixed(0)} ms (budget ${budgetMs.toFixed(0)} ms for a ${(body.length / MB).toFixed(2)} MB body; answered ${answer} after ${ms} ms)`;
      // Other processes share the cores: a stall is measured again before it fails the run; a slow path stalls again.
      if (!mayRemeasure) throw new Error(stall);
      figures.remeasured += 1;
      console.log(`measured again: ${stall}`);
      return runCase({ ...one, value: one.again ? one.again() : one.value }, false);
    }
    const search = SEARCH_AFTER[one.operation];
    if (search && !errors.length && typeof one.value === 'string') {
      // The stored text searched for: its tokens are in the index now.
      const at = allSlots().find((slot) => slot.operation === search && pathName(slot.slot.path) === 'query')!;
      const modes = ['KEYWORD', 'VECTOR', 'HYBRID'];
      await runCase({
        ...at,
        slot: { path: ['query'], kind: 'text' },
        shape: `${one.shape}, as stored by ${one.operation}`,
        value: cutToBytes(one.value, SEARCH_QUERY_BYTES),
        mode: search === 'searchExperiences' || search === 'searchMessages' ? modes[figures.cases % 3] : undefined,
      });
    }
    if (acceptedBytes > RECYCLE_BYTES) {
      await close();
      await open();
    }
  }

  it('every base is accepted as it is, so that a case reaches past validation to storage and search', async () => {
    const refused: string[] = [];
    for (const at of allSlots().filter((one, i, all) => all.findIndex((o) => o.operation === one.operation) === i)) {
      if (at.operation.startsWith('delete') || at.operation === 'revokeApiKey') continue; // ids of nothing, on purpose
      const variables = structuredClone(at.base);
      if (at.operation === 'learnFromTask') {
        await ok(`mutation { recordTask(input: { taskId: "learn-base", goal: "Book a flight", originalQuery: "q",
          status: COMPLETED, steps: [{ action: "tool1" }] }) { taskId } }`);
        (variables.input as Record<string, unknown>).taskId = 'learn-base';
      }
      const reply = await postOperation(url, at.query, variables, ADMIN_KEY);
      if (reply.body.errors) refused.push(`${at.operation}: ${JSON.stringify(reply.body.errors).slice(0, 300)}`);
    }
    expect(refused).toEqual([]);
  });

  it(
    'every case is answered with data or a client code, a refusal writes nothing, and no case stalls past its budget',
    async () => {
      const slots = allSlots();
      const sizes = LONG_RUN ? [...CI_SIZES, HUGE] : CI_SIZES;
      const cases = fc
        .constantFrom(...slots)
        .chain((at) => valueForSlot(at.slot, sizes, at.base).map((drawn) => ({ ...at, ...drawn })));
      await fc.assert(
        fc.asyncProperty(cases, async (one) => {
          // Larger than any body a server takes: regressions.test.ts covers the 413.
          fc.pre(Buffer.byteLength(toJson(one.value)) < MAX_BODY_BYTES - MB);
          await runCase(one);
        }),
        fuzzParameters(80),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  // The issue's worst cases, in every run: one 12 MB token in a stored, embedded and indexed text.
  const huge: Array<[string, Path, string, (bytes: number, seed: number) => string]> = [
    ['recordExperiences', ['inputs', 0, 'primaryGoalDescription'], 'alnum token', LONG_TOKENS.alnum],
    ['appendMessage', ['input', 'content'], 'CJK token', LONG_TOKENS.CJK],
  ];
  if (LONG_RUN || KNOWN_STALLS_FAIL) {
    // A known stall (KNOWN_STALLS): the run reports it, and fails on it with FUZZ_KNOWN_STALLS=1.
    huge.push(['recordExperiences', ['inputs', 0, 'primaryGoalDescription'], 'base64 token', LONG_TOKENS.base64]);
  }
  if (LONG_RUN) {
    huge.push(
      ['recordExperience', ['input', 'outputSummary'], 'Zalgo', OTHER_TEXTS['Zalgo (marks stacked 3 to 300 deep)']],
      ['recordTask', ['input', 'goal'], 'emoji token', LONG_TOKENS.emoji],
      ['recordAction', ['input', 'toolCalls', 0, 'result'], 'hex token', LONG_TOKENS.hex],
    );
  }
  it.each(huge)(
    '%s %j with a 12 MB %s is answered within its stall budget',
    async (operation, path, shape, make) => {
      const at = allSlots().find((one) => one.operation === operation && pathName(one.slot.path) === pathName(path));
      if (!at) throw new Error(`no slot ${operation} ${pathName(path)}`);
      await runCase({ ...at, shape: `${shape}, 12 MB`, value: make(HUGE, 7), again: () => make(HUGE, 8) });
    },
    60_000,
  );

  /**
   * A search whose query holds tens of thousands of distinct short words (the first 512 KB of a stored 12 MB URL:
   * `&p123=4567…`), after the write of that URL: both were stalls past the budget (KNOWN_STALLS).
   */
  it.each(['KEYWORD', 'HYBRID'])(
    'a %s search of 512 KB of distinct short tokens, over a stored 12 MB of them, is answered within its stall budget',
    async (mode) => {
      const text = LONG_TOKENS.URL(HUGE, 11);
      const record = allSlots().find((one) => one.operation === 'recordExperience')!;
      await runCase({
        ...record,
        slot: { path: ['input', 'outputSummary'], kind: 'text' },
        shape: 'URL token, 12 MB',
        value: text,
      });
      const search = allSlots().find((one) => one.operation === 'searchExperiences')!;
      const query = cutToBytes(text, 512 * KB);
      await runCase(
        { ...search, slot: { path: ['query'], kind: 'text' }, shape: 'URL token, 512 KB', value: query, mode },
        false,
      );
    },
    60_000,
  );

  it('every mutation but reembed and backupDataDir, and every search, has text slots drawn', () => {
    const operations = new Set(allSlots().map((one) => one.operation));
    const expected = [
      ...Object.keys(schema.getMutationType()!.getFields()).filter((name) => !NOT_FUZZED.has(name)),
      ...SEARCHES,
    ];
    expect(expected.filter((name) => !operations.has(name))).toEqual([]);
  });
});
