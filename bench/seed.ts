/**
 * Seeds the benchmark database through the driver, in the documents' stored shapes: sessions as seed 001 stores them,
 * experiences and tasks built by the features' own document builders with hash vectors of every embeddable field and
 * `embedding_model` set to the hash embedder's signature (so search accepts them), tool performance through the
 * features' one write path. Inserted in batches: 100k experiences through the API would take far longer, and the
 * server loads its search index from MongoDB at startup anyway, as it does for users.
 */
import 'reflect-metadata';
import type { Db } from 'mongodb';
import { EmbeddingService } from '../src/embeddings/embedding.service';
import { HashEmbeddingProvider } from '../src/embeddings/hash.provider';
import { toStoredVector } from '../src/embeddings/vectors';
import { EXPERIENCES_COLLECTION, type ExperienceDocument } from '../src/modules/experiences/experience.document';
import { ExperienceOutcome } from '../src/modules/experiences/experience.type';
import { newExperienceDocument } from '../src/modules/experiences/experience.validation';
import type { RecordExperienceInput } from '../src/modules/experiences/experience.input';
import {
  SESSIONS_COLLECTION,
  type AgentDocument,
  type MessageDocument,
  type SessionDocument,
} from '../src/modules/sessions/session.document';
import type { RecordTaskInput } from '../src/modules/tasks/task.input';
import { TASKS_COLLECTION, TaskStatus } from '../src/modules/tasks/task.document';
import { newTaskDocument } from '../src/modules/tasks/task.validation';
import { ToolService } from '../src/modules/tools/tool.service';
import type { ToolExecution } from '../src/modules/tools/tool.aggregation';
import { seededRandom } from '../test/support/vectors';

export interface SeedSizes {
  sessions: number;
  agentsPerSession: number;
  messagesPerAgent: number;
  experiences: number;
  tasks: number;
  tools: number;
}

/** What the load phases need to vary their requests over the seeded data. */
export interface SeedManifest {
  sessions: Array<{ id: string; agents: string[] }>;
  toolNames: string[];
  contexts: string[];
  /** Natural-language queries for searchExperiences (drawn like the seeded texts, not equal to them). */
  experienceQueries: string[];
  /** Query and goal pairs for similarTasks. */
  taskQueries: Array<{ query: string; goal: string }>;
  /** primary_goal_description of every experience, in insertion order (the vector benchmark embeds them again). */
  primaryGoals: string[];
  /** Seconds each collection took to seed. */
  seconds: Record<'sessions' | 'experiences' | 'tasks' | 'tools', number>;
}

/** Vector size of the hash embedder the server runs with (EMBEDDING_DIMENSIONS unset). */
export const DIMENSIONS = 384;
/** Time of the first seeded record; session i was created SESSION_SPACING_MS × i later, experience i EXPERIENCE_SPACING_MS × i. */
export const SEED_EPOCH = Date.UTC(2025, 0, 1);
export const SESSION_SPACING_MS = 60_000;
export const EXPERIENCE_SPACING_MS = 30_000;
const EXPERIENCE_BATCH = 500;
const TASK_BATCH = 1000;
const SESSION_BATCH = 50;
const INSERTS_IN_FLIGHT = 2;
const EXECUTIONS_PER_TOOL = 200;
/** Queries per kind the load phases cycle through; distinct enough that no cache serves a whole phase. */
const QUERY_COUNT = 1000;

const CITIES = [
  'Paris',
  'Berlin',
  'Madrid',
  'Tokyo',
  'Boston',
  'Denver',
  'Lagos',
  'Lima',
  'Oslo',
  'Seoul',
  'Austin',
  'Milan',
];
const CUSTOMERS = [
  'Alice',
  'Bob',
  'Carmen',
  'Dmitri',
  'Erin',
  'Farah',
  'Goro',
  'Hana',
  'Ivan',
  'Jules',
  'Kemal',
  'Lena',
];
const PRODUCTS = [
  'laptops',
  'chairs',
  'batteries',
  'monitors',
  'printers',
  'cables',
  'phones',
  'desks',
  'lamps',
  'routers',
];
const SYSTEMS = [
  'billing',
  'inventory',
  'crm',
  'payroll',
  'search',
  'checkout',
  'auth',
  'reporting',
  'shipping',
  'ledger',
];
const ISSUES = [
  'timeout',
  'duplicate charge',
  'missing invoice',
  'wrong address',
  'expired card',
  'stale cache',
  'null pointer',
];
const TEAMS = ['sales', 'support', 'finance', 'legal', 'platform', 'marketing'];
const TOOLS = [
  'search_flights',
  'book_seat',
  'list_facilities',
  'create_shipment',
  'refund_order',
  'lookup_customer',
  'send_email',
  'query_database',
  'run_tests',
  'deploy_service',
  'fetch_invoice',
  'update_ticket',
  'reset_password',
  'generate_report',
];
const CONTEXTS = ['travel', 'facility_management', 'customer_support', 'finance', 'engineering', 'reporting'];
const AGENT_IDS = ['support-agent', 'research-agent', 'planner-agent', 'executor-agent'];

export type Random = () => number;
export const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)];
const number = (random: Random, max: number) => 1 + Math.floor(random() * max);

/** Sizes of the agents' shares of the corpus: filtered searches keep one agent's (an indexed field). */
export const AGENT_SHARES = [1000, 2000, 5000, 10_000, 20_000, 50_000] as const;

/** The agent of experience `index`: the first 1000 belong to agent `scope-1000`, … (see AGENT_SHARES), the rest to `agent-rest`. */
export function agentOf(index: number): string {
  let start = 0;
  for (const share of AGENT_SHARES) {
    if (index < start + share) return `scope-${share}`;
    start += share;
  }
  return 'agent-rest';
}

/** Goal texts of the kinds agents record, with enough distinct words for keyword and lexical-vector search. */
const GOALS: Array<(r: Random) => string> = [
  (r) =>
    `Book a flight from ${pick(r, CITIES)} to ${pick(r, CITIES)} for ${pick(r, CUSTOMERS)} on day ${number(r, 28)}`,
  (r) => `Create shipment for facility ${number(r, 200)} with ${number(r, 40)} pallets of ${pick(r, PRODUCTS)}`,
  (r) => `Refund order ${number(r, 9999)} for ${pick(r, CUSTOMERS)} after a ${pick(r, ISSUES)}`,
  (r) => `Summarise the ${pick(r, SYSTEMS)} incidents of ${pick(r, CUSTOMERS)} for the ${pick(r, TEAMS)} team`,
  (r) => `Fix the ${pick(r, ISSUES)} bug in the ${pick(r, SYSTEMS)} service before release ${number(r, 50)}`,
  (r) => `Reset the password of ${pick(r, CUSTOMERS)} on the ${pick(r, SYSTEMS)} portal`,
  (r) => `Generate the quarterly ${pick(r, SYSTEMS)} report for the ${pick(r, CITIES)} office`,
  (r) => `Restock ${number(r, 500)} ${pick(r, PRODUCTS)} at the ${pick(r, CITIES)} warehouse`,
];

/** The four embeddable texts of an experience (seeded ones and those the recordExperience load sends). */
export function experienceTexts(
  r: Random,
): Pick<
  RecordExperienceInput,
  'primaryGoalDescription' | 'subTaskDescription' | 'inputContextSummary' | 'outputSummary'
> {
  return {
    primaryGoalDescription: pick(r, GOALS)(r),
    subTaskDescription: subTask(r),
    inputContextSummary: inputContext(r),
    outputSummary: outputSummary(r),
  };
}

/** A user's message of a session. */
export function userMessage(r: Random): string {
  return `${pick(r, GOALS)(r)}. Can you help?`;
}

function subTask(r: Random): string {
  return `${pick(r, ['Call', 'Query', 'Check', 'Validate', 'Compare', 'Collect'])} ${pick(r, TOOLS)} for ${pick(r, PRODUCTS)} in ${pick(r, SYSTEMS)}`;
}

function inputContext(r: Random): string {
  return `${pick(r, CUSTOMERS)} prefers ${pick(r, CITIES)}; previous attempt hit a ${pick(r, ISSUES)} in ${pick(r, SYSTEMS)}`;
}

function outputSummary(r: Random): string {
  return `${pick(r, ['Found', 'Created', 'Updated', 'Rejected'])} ${number(r, 20)} ${pick(r, PRODUCTS)} records and notified the ${pick(r, TEAMS)} team`;
}

function sessionId(index: number): string {
  return `bench-session-${String(index).padStart(6, '0')}`;
}

/** Inserts everything and returns what the load phases need. `log` receives one line per finished collection. */
export async function seedDatabase(db: Db, sizes: SeedSizes, log: (line: string) => void): Promise<SeedManifest> {
  const embedder = new EmbeddingService(new HashEmbeddingProvider(DIMENSIONS), null, { batchSize: 2048 });
  const seconds = { sessions: 0, experiences: 0, tasks: 0, tools: 0 };
  const timed = async <T>(name: keyof typeof seconds, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await run();
    seconds[name] = Number(((performance.now() - started) / 1000).toFixed(1));
    log(`seeded ${name} in ${seconds[name]} s`);
    return result;
  };
  const sessions = await timed('sessions', () => seedSessions(db, sizes));
  const primaryGoals = await timed('experiences', () => seedExperiences(db, sizes, embedder, sessions));
  await timed('tasks', () => seedTasks(db, sizes, embedder));
  const toolNames = TOOLS.concat(
    Array.from({ length: Math.max(0, sizes.tools - TOOLS.length) }, (_, i) => `tool_${i + 1}`),
  ).slice(0, sizes.tools);
  await timed('tools', () => seedTools(db, toolNames));

  const r = seededRandom(99);
  return {
    sessions,
    toolNames,
    contexts: CONTEXTS,
    experienceQueries: Array.from({ length: QUERY_COUNT }, () => pick(r, GOALS)(r)),
    taskQueries: Array.from({ length: QUERY_COUNT }, () => {
      const goal = pick(r, GOALS)(r);
      return { goal, query: `Please ${goal.charAt(0).toLowerCase()}${goal.slice(1)} as soon as possible` };
    }),
    primaryGoals,
    seconds,
  };
}

/**
 * Keeps up to INSERTS_IN_FLIGHT inserts running while the next batch is generated and embedded: the engine (another
 * process) and this one then work at the same time.
 */
class Pipeline {
  private readonly running = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  async add(insert: Promise<unknown>): Promise<void> {
    const tracked: Promise<void> = insert
      .then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= { error };
        },
      )
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
    if (this.running.size >= INSERTS_IN_FLIGHT) await Promise.race(this.running);
    this.rethrow();
  }

  async drain(): Promise<void> {
    await Promise.all(this.running);
    this.rethrow();
  }

  private rethrow(): void {
    if (this.failure) throw this.failure.error;
  }
}

async function seedSessions(db: Db, sizes: SeedSizes): Promise<SeedManifest['sessions']> {
  const r = seededRandom(1);
  const collection = db.collection<SessionDocument>(SESSIONS_COLLECTION);
  const manifest: SeedManifest['sessions'] = [];
  let batch: SessionDocument[] = [];
  for (let s = 0; s < sizes.sessions; s++) {
    const id = sessionId(s);
    const created = new Date(SEED_EPOCH + s * SESSION_SPACING_MS);
    const agentIds = Array.from({ length: sizes.agentsPerSession }, (_, a) => AGENT_IDS[a] ?? `agent-${a + 1}`);
    const agents: Record<string, AgentDocument> = {};
    let updated = created;
    for (const agentId of agentIds) {
      const messages: MessageDocument[] = Array.from({ length: sizes.messagesPerAgent }, (_, m) => {
        const at = new Date(created.getTime() + (m + 1) * 1000);
        const assistant = m % 2 === 1;
        return {
          message_id: m + 1,
          role: assistant ? 'assistant' : 'user',
          content: assistant
            ? `I checked ${pick(r, SYSTEMS)} and found ${number(r, 20)} ${pick(r, PRODUCTS)} for ${pick(r, CUSTOMERS)}; the ${pick(r, ISSUES)} is resolved.`
            : userMessage(r),
          created_at: at,
          updated_at: at,
          ...(assistant
            ? {
                event_loop_metrics: {
                  accumulated_metrics: { latencyMs: number(r, 2000) },
                  accumulated_usage: {
                    inputTokens: number(r, 500),
                    outputTokens: number(r, 300),
                    totalTokens: number(r, 800),
                  },
                },
              }
            : {}),
        };
      });
      const last = messages.at(-1)?.updated_at ?? created;
      if (last > updated) updated = last;
      agents[agentId] = {
        agent_data: {
          agent_id: agentId,
          model: 'claude-3-sonnet-20240229',
          system_prompt: `You are the ${agentId}.`,
          temperature: 0.7,
          max_tokens: 1024,
          state: { conversation_count: number(r, 10) },
          conversation_manager_state: {},
          created_at: created.toISOString(),
          updated_at: last.toISOString(),
        },
        created_at: created,
        updated_at: last,
        messages,
      };
    }
    batch.push({
      _id: id,
      session_id: id,
      session_type: pick(r, ['customer_support', 'research', 'coding']),
      created_at: created,
      updated_at: updated,
      metadata: {
        user_id: `user-${number(r, 500)}`,
        priority: pick(r, ['low', 'medium', 'high']),
        department: pick(r, TEAMS),
      },
      feedbacks:
        r() < 0.3
          ? [{ rating: pick(r, ['up', 'down', null] as const), comment: 'Benchmark feedback', created_at: updated }]
          : [],
      agents,
    });
    manifest.push({ id, agents: agentIds });
    if (batch.length === SESSION_BATCH) {
      await collection.insertMany(batch);
      batch = [];
    }
  }
  if (batch.length) await collection.insertMany(batch);
  return manifest;
}

async function seedExperiences(
  db: Db,
  sizes: SeedSizes,
  embedder: EmbeddingService,
  sessions: SeedManifest['sessions'],
): Promise<string[]> {
  const r = seededRandom(2);
  const collection = db.collection<ExperienceDocument>(EXPERIENCES_COLLECTION);
  const outcomes = Object.values(ExperienceOutcome);
  const goals: string[] = [];
  const inserts = new Pipeline();
  for (let from = 0; from < sizes.experiences; from += EXPERIENCE_BATCH) {
    const documents = Array.from({ length: Math.min(EXPERIENCE_BATCH, sizes.experiences - from) }, (_, i) => {
      const index = from + i;
      const input: RecordExperienceInput = {
        experienceId: `bench-exp-${String(index).padStart(7, '0')}`,
        ...experienceTexts(r),
        initiatingAgentId: agentOf(index),
        involvedComponents: [pick(r, TOOLS), pick(r, SYSTEMS)],
        keyDecisionsMade: [`Used ${pick(r, TOOLS)}`],
        finalOutcome: pick(r, outcomes),
        feedbackSignals: r() < 0.2 ? { userRating: number(r, 5) } : undefined,
        timestamp: new Date(SEED_EPOCH + index * EXPERIENCE_SPACING_MS),
        workflowId: `workflow-${number(r, 1000)}`,
        sessionId: sessions[index % sessions.length].id,
        tags: [pick(r, CONTEXTS), pick(r, TEAMS)],
      } as RecordExperienceInput;
      return newExperienceDocument(input, 'seed', new Date(SEED_EPOCH));
    });
    const fields = [
      'primary_goal_description',
      'sub_task_description',
      'input_context_summary',
      'output_summary',
    ] as const;
    const vectors = await embedder.embed(
      documents.flatMap((document) => fields.map((field) => document[field] as string)),
    );
    documents.forEach((document, i) => {
      document.embeddings = Object.fromEntries(
        fields.map((field, f) => [`${field}_embedding`, toStoredVector(vectors[i * fields.length + f])]),
      );
      document.embedding_model = embedder.signature;
      goals.push(document.primary_goal_description);
    });
    await inserts.add(collection.insertMany(documents));
  }
  await inserts.drain();
  return goals;
}

async function seedTasks(db: Db, sizes: SeedSizes, embedder: EmbeddingService): Promise<void> {
  const r = seededRandom(3);
  const collection = db.collection(TASKS_COLLECTION);
  const statuses = [
    TaskStatus.COMPLETED,
    TaskStatus.COMPLETED,
    TaskStatus.COMPLETED,
    TaskStatus.FAILED,
    TaskStatus.PAUSED,
  ];
  const inserts = new Pipeline();
  for (let from = 0; from < sizes.tasks; from += TASK_BATCH) {
    const documents = Array.from({ length: Math.min(TASK_BATCH, sizes.tasks - from) }, (_, i) => {
      const goal = pick(r, GOALS)(r);
      const input = {
        taskId: `bench-task-${String(from + i).padStart(6, '0')}`,
        originalQuery: `Please ${goal.charAt(0).toLowerCase()}${goal.slice(1)} by ${pick(r, ['today', 'tomorrow', 'Friday'])}`,
        goal,
        status: pick(r, statuses),
        steps: Array.from({ length: 2 + number(r, 4) }, () => ({ action: pick(r, TOOLS) })).map((step, order) => ({
          ...step,
          order: order + 1,
        })),
        successMetrics: {
          executionTime: number(r, 60_000),
          stepsCompleted: number(r, 6),
          retries: number(r, 3) - 1,
          userInputsRequired: 0,
        },
        createdAt: new Date(SEED_EPOCH + (from + i) * SESSION_SPACING_MS),
        context: pick(r, CONTEXTS),
      } as RecordTaskInput;
      return newTaskDocument(input, new Date(SEED_EPOCH));
    });
    const vectors = await embedder.embed(documents.flatMap((document) => [document.originalQuery, document.goal]));
    documents.forEach((document, i) => {
      document.embeddings = {
        originalQuery_embedding: toStoredVector(vectors[2 * i]),
        goal_embedding: toStoredVector(vectors[2 * i + 1]),
      };
      document.embedding_model = embedder.signature;
    });
    await inserts.add(collection.insertMany(documents));
  }
  await inserts.drain();
}

async function seedTools(db: Db, toolNames: string[]): Promise<void> {
  const r = seededRandom(4);
  const tools = new ToolService(db, 24); // the seed uses no idempotency keys
  for (const toolName of toolNames) {
    const executions: ToolExecution[] = Array.from({ length: EXECUTIONS_PER_TOOL }, () => {
      const success = r() < 0.85;
      return {
        toolName,
        success,
        durationMs: number(r, 3000),
        error: success ? null : `${pick(r, ISSUES)} from ${pick(r, SYSTEMS)}`,
        context: pick(r, CONTEXTS),
      };
    });
    await tools.recordExecutions(executions, 'inputs');
  }
}

/** What {@link writeBehindTheServer} changed. */
export interface WrittenBehind {
  updated: number;
  inserted: number;
  deleted: number;
}

/** Calls of writeBehindTheServer so far (see there). */
let writesBehind = 0;

/**
 * Writes made straight through the driver, as another system sharing the database would make them while the server
 * is down: `count` experiences take another one's texts and vectors, `count` copies are inserted under new ids, and
 * `count` others are deleted. A restart must find all of them (its catch-up) to answer as a fresh build would.
 */
export async function writeBehindTheServer(db: Db, count: number): Promise<WrittenBehind> {
  const collection = db.collection<ExperienceDocument>(EXPERIENCES_COLLECTION);
  const sample = await collection
    .find({}, { projection: { _id: 0 } })
    .limit(4 * count)
    .toArray();
  if (sample.length < 4 * count)
    throw new Error(`writing behind the server needs ${4 * count} experiences, found ${sample.length}`);
  const [updatedOnes, donors, copied, deletedOnes] = [0, 1, 2, 3].map((part) =>
    sample.slice(part * count, (part + 1) * count),
  );
  const texts = [
    'primary_goal_description',
    'sub_task_description',
    'input_context_summary',
    'output_summary',
  ] as const;
  // Each call pairs the same documents with other donors, so that its updates change them again: a repeated call
  // would otherwise set the values they already hold, and a restart's catch-up would have nothing to re-index.
  const shift = ++writesBehind;
  const updated = await collection.bulkWrite(
    updatedOnes.map((document, i) => {
      const donor = donors[(i + shift) % count];
      return {
        updateOne: {
          filter: { experience_id: document.experience_id },
          update: {
            $set: { ...Object.fromEntries(texts.map((field) => [field, donor[field]])), embeddings: donor.embeddings },
          },
        },
      };
    }),
  );
  const stamp = `${Date.now().toString(36)}-${shift}`;
  const inserted = await collection.insertMany(
    copied.map((document, i) => ({ ...document, experience_id: `behind-${stamp}-${i}` })),
  );
  const deleted = await collection.deleteMany({
    experience_id: { $in: deletedOnes.map((document) => document.experience_id) },
  });
  return { updated: updated.modifiedCount, inserted: inserted.insertedCount, deleted: deleted.deletedCount };
}
