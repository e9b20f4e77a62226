import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { REEMBED_TARGETS, type AppDeps } from './app';
import { ANONYMOUS_CALLER, type Caller } from './auth/caller';
import { ApiKeyService } from './modules/api-keys/api-key.service';
import { boundToRequest, type RequestLifetime } from './db/request-bound';
import { requestLogFields } from './observability/tracing';
import { createExperienceLoaders, type ExperienceLoaders } from './modules/experiences/experience.loaders';
import { ExperienceRepository } from './modules/experiences/experience.repository';
import { ExperienceService } from './modules/experiences/experience.service';
import { ForgetService } from './modules/forget/forget.service';
import { MessageSearchService } from './modules/messages/message.service';
import { AgentInsightRepository } from './modules/insights/insight.repository';
import { InsightService } from './modules/insights/insight.service';
import { createInsightLoaders, type InsightLoaders } from './modules/insights/insight.loaders';
import { createHistoryLoaders, type HistoryLoaders } from './modules/history/memory-event.loaders';
import { MemoryEventRepository } from './modules/history/memory-event.repository';
import { ValidityService } from './modules/validity/validity.service';
import { createPlanLoaders, type PlanLoaders } from './modules/plans/plan.loaders';
import { PlanPatternRepository } from './modules/plans/plan.repository';
import { PlanService } from './modules/plans/plan.service';
import { RecallService } from './modules/recall/recall.service';
import { ReembedService } from './modules/reembed/reembed.service';
import { createNodeLoaders, type NodeLoaders } from './modules/nodes/node.loaders';
import { NodeService } from './modules/nodes/node.service';
import { actionEnricherFor } from './modules/runs/run.action-enricher';
import { createRunLoaders, type RunLoaders } from './modules/runs/run.loaders';
import { RunService } from './modules/runs/run.service';
import { similarTaskToolExecutions, userToolExecutions } from './modules/runs/run.tool-usage';
import { createSessionLoaders, type SessionLoaders } from './modules/sessions/session.loaders';
import { SessionRepository } from './modules/sessions/session.repository';
import { SessionService } from './modules/sessions/session.service';
import { SubscriptionService } from './modules/subscriptions/subscription.service';
import type { LoaderSettings } from './modules/shared/loaders';
import { LearningService } from './modules/tasks/task.learning.service';
import { createTaskLoaders, type TaskLoaders } from './modules/tasks/task.loaders';
import { TaskRepository } from './modules/tasks/task.repository';
import { TaskService } from './modules/tasks/task.service';
import { ToolPerformanceRepository } from './modules/tools/tool.repository';
import { ToolService } from './modules/tools/tool.service';
import { StoredValueReport } from './modules/shared/stored-values';

export type { Caller } from './auth/caller';

/**
 * Per-request state: the caller, the database this request works on, fresh services and DataLoaders.
 * Resolvers read it and never mutate it; repositories get the database from here, never from a singleton.
 */
export interface Context {
  requestId: string;
  caller: Caller;
  db: Db;
  /** Aborted when the request's deadline passes or its client leaves: long work checks it and stops. */
  signal: AbortSignal;
  deps: AppDeps;
  /** Per-request service instances bound to `db`; resolvers make one call into these. */
  services: Services;
  /** Per-request DataLoaders (batching and caching relation reads for this request only). */
  loaders: Loaders;
  /** Stored values served as substitutes in this request's answer: errors appended to its response. */
  storedValues: StoredValueReport;
  /** What this request's log lines carry: its id, and its trace id when it is traced. */
  logFields: Record<string, string>;
}

/** Each feature adds its service here and a getter constructing it in `RequestServices`. */
export interface Services {
  apiKeys: ApiKeyService;
  experiences: ExperienceService;
  reembed: ReembedService;
  sessions: SessionService;
  tasks: TaskService;
  plans: PlanService;
  tools: ToolService;
  insights: InsightService;
  learning: LearningService;
  runs: RunService;
  nodes: NodeService;
  subscriptions: SubscriptionService;
  validity: ValidityService;
  forget: ForgetService;
  messages: MessageSearchService;
  recall: RecallService;
}

/** Each feature's loaders under its name (built by its `create<Feature>Loaders`), with a getter in `RequestLoaders`. */
export interface Loaders {
  experiences: ExperienceLoaders;
  sessions: SessionLoaders;
  tasks: TaskLoaders;
  plans: PlanLoaders;
  runs: RunLoaders;
  nodes: NodeLoaders;
  insights: InsightLoaders;
  history: HistoryLoaders;
}

export interface ContextOptions {
  /** Default: anonymous, i.e. admin of the default tenant. */
  caller?: Caller;
  /** The database to work on (the caller's tenant's); defaults to the configured one. */
  db?: Db;
  /** The request's deadline and signal (HTTP): `db` then bounds every read by them (src/db/request-bound.ts). */
  lifetime?: RequestLifetime;
  /** Tests and benchmarks only: false makes every loader read per key without caching (default true). */
  batching?: boolean;
  /** The HTTP request's id (its span and log lines carry it); default: a new one. */
  requestId?: string;
}

/**
 * A request's DataLoaders, each feature's (with its repository) created on first use: an operation typically uses one
 * or two features' loaders, and creating all 8 with 5 repositories on every request took about 8 µs (1–2% of a small
 * read's CPU). A feature's loaders are created together, as they may refer to each other.
 */
class RequestLoaders implements Loaders {
  private experienceLoaders?: ExperienceLoaders;
  private sessionLoaders?: SessionLoaders;
  private taskLoaders?: TaskLoaders;
  private planLoaders?: PlanLoaders;
  private runLoaders?: RunLoaders;
  private nodeLoaders?: NodeLoaders;
  private insightLoaders?: InsightLoaders;
  private historyLoaders?: HistoryLoaders;

  constructor(
    private readonly db: Db,
    private readonly settings: LoaderSettings,
    private readonly caller: Caller,
  ) {}

  get experiences(): ExperienceLoaders {
    return (this.experienceLoaders ??= createExperienceLoaders(new ExperienceRepository(this.db), this.settings));
  }
  get sessions(): SessionLoaders {
    return (this.sessionLoaders ??= createSessionLoaders(new SessionRepository(this.db), this.settings));
  }
  get tasks(): TaskLoaders {
    return (this.taskLoaders ??= createTaskLoaders(new TaskRepository(this.db), this.settings));
  }
  get plans(): PlanLoaders {
    return (this.planLoaders ??= createPlanLoaders(new PlanPatternRepository(this.db), this.settings));
  }
  get runs(): RunLoaders {
    // Runs are stored in their task documents.
    return (this.runLoaders ??= createRunLoaders(new TaskRepository(this.db), this.settings));
  }
  get insights(): InsightLoaders {
    return (this.insightLoaders ??= createInsightLoaders(new AgentInsightRepository(this.db), this.settings));
  }
  get history(): HistoryLoaders {
    return (this.historyLoaders ??= createHistoryLoaders(
      new MemoryEventRepository(this.db, this.caller),
      this.settings,
    ));
  }
  get nodes(): NodeLoaders {
    return (this.nodeLoaders ??= createNodeLoaders(
      {
        sessions: new SessionRepository(this.db),
        tasks: new TaskRepository(this.db),
        tools: new ToolPerformanceRepository(this.db),
        insights: new AgentInsightRepository(this.db),
      },
      this.settings,
    ));
  }
}

/**
 * A request's services, each constructed on first use: an operation typically needs one or two of them, and building
 * all (with their repositories) on every request was measured at ~2% of a small read's CPU. Plain constructors, one
 * shape: the database first (each service builds its repository from it), then the deps, loaders and other services
 * it uses.
 */
class RequestServices implements Services {
  private instances: Partial<Services> = {};

  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly loaders: RequestLoaders,
    private readonly caller: Caller,
  ) {}

  private once<K extends keyof Services>(name: K, create: () => Services[K]): Services[K] {
    return (this.instances[name] ??= create());
  }

  get apiKeys() {
    return this.once(
      'apiKeys',
      () => new ApiKeyService(this.deps.keys, this.caller, this.deps.database.db.databaseName),
    );
  }
  get experiences() {
    return this.once(
      'experiences',
      () => new ExperienceService(this.db, this.deps, this.loaders, this.reembed, this.caller),
    );
  }
  get reembed() {
    return this.once('reembed', () => new ReembedService(this.db, this.deps, REEMBED_TARGETS));
  }
  get sessions() {
    return this.once(
      'sessions',
      () =>
        new SessionService(
          this.db,
          this.loaders,
          this.deps.config.idempotencyTtlHours,
          this.deps.messageIndex.listenerFor(this.db),
        ),
    );
  }
  get tasks() {
    return this.once('tasks', () => new TaskService(this.db, this.deps, this.loaders, this.reembed));
  }
  get plans() {
    return this.once(
      'plans',
      () =>
        new PlanService(this.db, this.deps, this.loaders, this.reembed, (userId) =>
          new TaskRepository(this.db).userPlanRuns(userId),
        ),
    );
  }
  get tools(): ToolService {
    return this.once(
      'tools',
      () =>
        new ToolService(
          this.db,
          this.deps.config.idempotencyTtlHours,
          (userId, toolName) => userToolExecutions(new TaskRepository(this.db), this.learning, userId, toolName),
          (query, toolName) =>
            similarTaskToolExecutions(this.tasks, new TaskRepository(this.db), this.learning, query, toolName),
        ),
    );
  }
  get insights() {
    return this.once('insights', () => new InsightService(this.db, this.deps.config.idempotencyTtlHours, this.caller));
  }
  get learning() {
    return this.once(
      'learning',
      () => new LearningService(this.db, this.deps, this.loaders, this.insights, this.tools),
    );
  }
  get subscriptions() {
    return this.once('subscriptions', () => new SubscriptionService(this.db, this.deps.changes));
  }
  get runs() {
    return this.once(
      'runs',
      () =>
        new RunService(
          this.db,
          this.loaders,
          actionEnricherFor(this.deps),
          this.tools,
          this.deps.config.idempotencyTtlHours,
        ),
    );
  }
  get nodes() {
    return this.once('nodes', () => new NodeService(this.loaders));
  }
  get validity() {
    return this.once('validity', () => new ValidityService(this.db, this.deps, this.loaders, this.caller));
  }

  get messages() {
    return this.once('messages', () => new MessageSearchService(this.db, this.deps));
  }

  get forget() {
    return this.once('forget', () => new ForgetService(this.db, this.deps, this.caller));
  }
  get recall() {
    return this.once('recall', () => new RecallService(this, this.deps.config.messageIndex));
  }
}

/** Builds the context of one request. Cheap: loaders and services are created on first use. */
export function createContext(deps: AppDeps, options: ContextOptions = {}): Context {
  const db = requestBound(options.db ?? deps.database.db, options.lifetime);
  const caller = options.caller ?? ANONYMOUS_CALLER;
  const loaders = new RequestLoaders(db, { batching: options.batching ?? true }, caller);
  const services = new RequestServices(db, requestDeps(deps, options.lifetime), loaders, caller);
  return new RequestContext(options.requestId ?? randomUUID(), caller, db, deps, services, loaders, options.lifetime);
}

/**
 * A class rather than an object literal: `signal` is a getter (the lifetime makes its signal and timer only when
 * asked), and an accessor in a literal is defined afresh, slowly, on every request.
 */
class RequestContext implements Context {
  readonly storedValues: StoredValueReport;
  readonly logFields: Record<string, string>;

  constructor(
    readonly requestId: string,
    readonly caller: Caller,
    readonly db: Db,
    readonly deps: AppDeps,
    readonly services: Services,
    readonly loaders: Loaders,
    private readonly lifetime: RequestLifetime | undefined,
  ) {
    this.logFields = requestLogFields(requestId, lifetime?.span);
    this.storedValues = new StoredValueReport(deps.logger, this.logFields);
  }

  get signal(): AbortSignal {
    return this.lifetime ? this.lifetime.signal : NEVER_ABORTED;
  }
}

/** The signal of a context without a lifetime (in-process calls, subscriptions). */
const NEVER_ABORTED = new AbortController().signal;

function requestBound(db: Db, lifetime: RequestLifetime | undefined): Db {
  return lifetime ? boundToRequest(db, lifetime) : db;
}

/** `deps` whose embedder works under the request's signal (the embedder is built on first use). */
function requestDeps(deps: AppDeps, lifetime: RequestLifetime | undefined): AppDeps {
  if (!lifetime) return deps;
  const bound = Object.create(requestDepsPrototype(deps)) as RequestDeps;
  bound[LIFETIME] = lifetime;
  return bound;
}

const LIFETIME = Symbol('request lifetime');
const EMBEDDER = Symbol('request embedder');

type RequestDeps = AppDeps & { [LIFETIME]: RequestLifetime; [EMBEDDER]?: AppDeps['embedder'] };

const requestDepsPrototypes = new WeakMap<AppDeps, AppDeps>();

/** The prototype of a request's deps: `deps` with a getter for the request's embedder, made once per `deps`. */
function requestDepsPrototype(deps: AppDeps): AppDeps {
  let prototype = requestDepsPrototypes.get(deps);
  if (!prototype) {
    prototype = Object.create(deps, {
      embedder: {
        get(this: RequestDeps) {
          return (this[EMBEDDER] ??= deps.embedder.withSignal(this[LIFETIME].signal));
        },
      },
    }) as AppDeps;
    requestDepsPrototypes.set(deps, prototype);
  }
  return prototype;
}
