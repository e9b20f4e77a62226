import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AppDeps } from './app';
import { ReembedService } from './modules/admin/reembed.service';
import { createExperienceLoaders, type ExperienceLoaders } from './modules/experiences/experience.loaders';
import { ExperienceRepository } from './modules/experiences/experience.repository';
import { ExperienceService } from './modules/experiences/experience.service';
import { createSessionLoaders, type SessionLoaders } from './modules/sessions/session.loaders';
import { SessionRepository } from './modules/sessions/session.repository';
import { SessionService } from './modules/sessions/session.service';
import { InsightService } from './modules/insights/insight.service';
import { createPlanLoaders, type PlanLoaders } from './modules/plans/plan.loaders';
import { PlanPatternRepository } from './modules/plans/plan.repository';
import { PlanService } from './modules/plans/plan.service';
import { LearningService } from './modules/tasks/learning.service';
import { createTaskLoaders, type TaskLoaders } from './modules/tasks/task.loaders';
import { TaskRepository } from './modules/tasks/task.repository';
import { TaskService } from './modules/tasks/task.service';
import { ToolService } from './modules/tools/tool.service';
import { actionEnricherFor } from './modules/runs/action-enricher';
import { createRunLoaders, type RunLoaders } from './modules/runs/run.loaders';
import { RunRepository } from './modules/runs/run.repository';
import { RunService } from './modules/runs/run.service';
import type { LoaderSettings } from './modules/shared/loaders';

/** Who is calling: the API key's index when API_KEYS is set, else anonymous. */
export interface Caller {
  apiKeyIndex: number | null;
}

/**
 * Per-request state: the caller, the database this request works on, fresh services and DataLoaders.
 * Resolvers read it and never mutate it; repositories get the database from here, never from a singleton.
 */
export interface Context {
  requestId: string;
  caller: Caller;
  db: Db;
  deps: AppDeps;
  /** Per-request service instances bound to `db`; resolvers make one call into these. */
  services: Services;
  /** Per-request DataLoaders (batching and caching relation reads for this request only). */
  loaders: Loaders;
}

/** Each feature adds its service here and constructs it in `createContext`. */
export interface Services {
  experiences: ExperienceService;
  reembed: ReembedService;
  sessions: SessionService;
  tasks: TaskService;
  plans: PlanService;
  tools: ToolService;
  insights: InsightService;
  learning: LearningService;
  runs: RunService;
}

/** Each feature adds its loaders here (built by its `<feature>.loaders.ts`) and creates them in `createContext`. */
export interface Loaders extends ExperienceLoaders, SessionLoaders, TaskLoaders, PlanLoaders, RunLoaders {}

export interface ContextOptions {
  caller?: Caller;
  /** The database to work on; defaults to the configured one. */
  db?: Db;
  /** Tests and benchmarks only: false makes every loader read per key without caching (default true). */
  batching?: boolean;
}

/** Builds the context of one request. Cheap: plain constructors, loaders created empty. */
export function createContext(deps: AppDeps, options: ContextOptions = {}): Context {
  const db = options.db ?? deps.database.db;
  const sessionRepository = new SessionRepository(db);
  const settings: LoaderSettings = { batching: options.batching ?? true };
  const loaders: Loaders = {
    ...createExperienceLoaders(new ExperienceRepository(db), settings),
    ...createSessionLoaders(sessionRepository, settings),
    ...createTaskLoaders(new TaskRepository(db), settings),
    ...createPlanLoaders(new PlanPatternRepository(db), settings),
    ...createRunLoaders(new RunRepository(db), settings),
  };
  const reembed = new ReembedService(db, deps);
  const insights = new InsightService(db);
  const services: Services = {
    experiences: new ExperienceService(db, deps, loaders, reembed),
    reembed,
    sessions: new SessionService(sessionRepository, loaders),
    tasks: new TaskService(db, deps, loaders, reembed),
    plans: new PlanService(db, deps, loaders, reembed),
    tools: new ToolService(db),
    insights,
    learning: new LearningService(db, deps, loaders, insights),
    runs: new RunService(db, loaders, actionEnricherFor(deps)),
  };
  return {
    requestId: randomUUID(),
    caller: options.caller ?? { apiKeyIndex: null },
    db,
    deps,
    services,
    loaders,
  };
}
