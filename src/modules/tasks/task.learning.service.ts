import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AppDeps } from '../../app';
import { ConflictError, NotFoundError, ValidationError } from '../../errors';
import { sameEmbeddingModel } from '../../embeddings/model-check';
import { fromStoredVector, toStoredVector } from '../../embeddings/vectors';
import { AgentType, InsightType } from '../insights/insight.type';
import { checkInsightText, type InsightService } from '../insights/insight.service';
import type { PlanLoaders } from '../plans/plan.loaders';
import { PlanPatternRepository } from '../plans/plan.repository';
import { PLAN_GOAL_SPACE } from '../plans/plan.spaces';
import type { PlanStepDocument } from '../plans/plan.document';
import { planPatternId } from '../plans/plan.type';
import type { ToolExecution } from '../tools/tool.aggregation';
import type { ToolService } from '../tools/tool.service';
import type { LearnFromTaskInput } from './task.input';
import type { TaskLoaders } from './task.loaders';
import { TaskRepository, type ToolUsageTask } from './task.repository';
import { TASK_GOAL_SPACE } from './task.spaces';
import type { TaskDocument } from './task.document';
import { TaskOutcome, TaskStatus, taskGoalPattern, type LearnResult } from './task.type';
import { checkMetrics, requiredText } from './task.validation';
import { storedInt } from '../shared/stored-values';

/** A claim older than this is taken to be an interrupted learnFromTask, and may be taken over. */
export const LEARNING_LEASE_MS = 60_000;
export const MAX_INSIGHTS_PER_TASK = 50;
/** The error recorded for the step a failed run stopped at. */
export const FAILED_STEP_ERROR = 'the task failed at this step';

/** The plan a run followed: the pattern it counts for and its steps. */
interface RunPlan {
  patternId: string | null;
  goalPattern: string;
  steps: PlanStepDocument[];
}

/**
 * The tool executions a run's steps stand for: the first `stepsCompleted` steps succeeded; in a failed run the
 * next step failed (FAILED_STEP_ERROR); later steps did not run. Durations are unknown (left out of averages).
 */
export function stepExecutions(
  steps: readonly PlanStepDocument[],
  outcome: TaskOutcome,
  stepsCompleted: number,
  context: string,
  taskId: string,
): ToolExecution[] {
  const completed = Math.min(stepsCompleted, steps.length);
  const executions: ToolExecution[] = steps
    .slice(0, completed)
    .map((step) => ({ toolName: step.action, success: true, durationMs: null, context, taskId }));
  if (outcome === TaskOutcome.FAILED && completed < steps.length) {
    executions.push({
      toolName: steps[completed].action,
      success: false,
      durationMs: null,
      error: FAILED_STEP_ERROR,
      context,
      taskId,
    });
  }
  return executions;
}

/** The tool executions a run's plan steps count as, in the task's context (else the plan's goal pattern). */
function runExecutions(
  task: Pick<TaskDocument, 'context' | 'taskId'>,
  plan: RunPlan,
  outcome: TaskOutcome,
  stepsCompleted: number,
): ToolExecution[] {
  return stepExecutions(plan.steps, outcome, stepsCompleted, task.context ?? plan.goalPattern, task.taskId);
}

/** Where a run's insights go: patterns from a completed run, warnings from a failed one. */
function insightTypeOf(outcome: TaskOutcome): InsightType {
  return outcome === TaskOutcome.COMPLETED ? InsightType.PATTERNS : InsightType.WARNINGS;
}

/** The issues a failed run adds to its plan pattern: the step it stopped at, and its insights. */
export function runIssues(
  steps: readonly PlanStepDocument[],
  stepsCompleted: number,
  insights: readonly string[],
): string[] {
  const issues = stepsCompleted < steps.length ? [`failed at step "${steps[stepsCompleted].action}"`] : [];
  return [...new Set([...issues, ...insights])];
}

/**
 * learnFromTask (seed 002 learn_from_task): adds a finished run to its plan pattern, its steps to tool
 * performance and its insights to the agent's insights — once per task.
 *
 * The task must have been recorded (recordTask): its goal and steps are what is learned. The plan pattern is the
 * one named by `planId` when that is a plan pattern's id (a plan reused from successfulPlans; its steps stand in
 * for the task's when the task has none), else the pattern of (goalPattern(goal), step actions); `planId` is stored
 * on the task either way.
 *
 * Counting once: a claim on the task document (one atomic update, which also records status and metrics) admits one
 * call; later calls get the first call's answer with `alreadyLearned`, a concurrent one CONFLICT. Each part marks
 * itself done, so a call taking over an interrupted claim (older than LEARNING_LEASE_MS) skips finished parts.
 */
export class LearningService {
  private readonly tasks: TaskRepository;
  private readonly plans: PlanPatternRepository;

  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly loaders: { tasks: TaskLoaders; plans: PlanLoaders },
    private readonly insights: InsightService,
    private readonly tools: ToolService,
  ) {
    this.tasks = new TaskRepository(db);
    this.plans = new PlanPatternRepository(db);
  }

  async learn(input: LearnFromTaskInput): Promise<LearnResult> {
    const taskId = requiredText(input.taskId, 'input.taskId', 200);
    const metrics = checkMetrics(input.metrics, 'input.metrics');
    if (input.insights.length > MAX_INSIGHTS_PER_TASK) {
      throw new ValidationError(`At most ${MAX_INSIGHTS_PER_TASK} insights per task.`, 'input.insights');
    }
    const insights = input.insights.map((text, i) => checkInsightText(text, `input.insights.${i}`));
    const planId = input.planId?.trim() || null;

    await this.checkStored(taskId, planId, input, metrics.stepsCompleted, insights);
    const claimId = randomUUID();
    const now = new Date();
    const status = input.status === TaskOutcome.COMPLETED ? TaskStatus.COMPLETED : TaskStatus.FAILED;
    const task = await this.tasks.claimLearning(
      taskId,
      { status, successMetrics: metrics, planId },
      claimId,
      now,
      LEARNING_LEASE_MS,
    );
    this.loaders.tasks.taskById.clear(taskId);
    if (!task) return this.answerForUnclaimed(taskId);
    // similarTasks filtered by status sees the new one at once.
    this.deps.search.forDb(this.db).markWritten(TASK_GOAL_SPACE.name, taskId);

    const done = task.learning?.done ?? {};
    const plan = await this.runPlan(task, planId);
    if (plan.patternId && !done.pattern) {
      await this.learnPattern(task, plan, input.status, metrics.executionTime, metrics.stepsCompleted, insights, now);
      await this.tasks.markLearned(taskId, claimId, 'pattern');
    }
    if (input.countToolExecutions && plan.steps.length && !done.tools) {
      const executions = runExecutions(task, plan, input.status, metrics.stepsCompleted);
      // Counted under the task's write id, so a call taking over after a crash before markLearned counts it once.
      await this.tools.recordExecutions(executions, 'input', `learnFromTask:${String(task._id)}`);
      await this.tasks.markLearned(taskId, claimId, 'tools');
    }
    let insightsStored = 0;
    if (insights.length) {
      // Reports are idempotent per task (evidence is keyed by taskId), so a resumed call may simply repeat them.
      insightsStored = await this.insights.recordFromTask(
        task.agentType ?? AgentType.EXECUTOR,
        insightTypeOf(input.status),
        insights,
        { taskId, description: `${input.status} run: ${task.goal}` },
        { userId: task.user_id },
      );
    }
    const result = { patternsLearned: plan.patternId ? 1 : 0, insightsStored, patternId: plan.patternId };
    await this.tasks.finishLearning(taskId, claimId, result, new Date());
    if (plan.patternId) this.loaders.plans.planPatternById.clear(plan.patternId);
    return { success: true, ...result, alreadyLearned: false, taskId };
  }

  /**
   * Refuses (CONFLICT naming the stored field) before the claim when a stored document the learning would update is
   * damaged — its plan pattern, the tools its steps count in, the insights it reinforces — since the claim and each
   * part are separate writes, and a part failing after the others would leave them written.
   */
  private async checkStored(
    taskId: string,
    planId: string | null,
    input: LearnFromTaskInput,
    stepsCompleted: number,
    insights: string[],
  ): Promise<void> {
    const task = await this.loaders.tasks.taskById.load(taskId);
    // Unknown, or learned before: the claim answers without writing.
    if (!task || task.learning?.state === 'learned') return;
    const plan = await this.runPlan(task, planId);
    const damage = plan.patternId ? await this.plans.learnDamage(plan.patternId) : null;
    if (damage) throw damage;
    if (input.countToolExecutions && plan.steps.length) {
      await this.tools.checkRecordable(runExecutions(task, plan, input.status, stepsCompleted), 'input');
    }
    if (insights.length) {
      await this.insights.checkReportable(task.agentType ?? AgentType.EXECUTOR, insightTypeOf(input.status), insights, {
        userId: task.user_id,
      });
    }
  }

  /** The answer when the claim failed: unknown task, learned before (its first answer), or being learned now. */
  private async answerForUnclaimed(taskId: string): Promise<LearnResult> {
    const task = await this.tasks.findLearning(taskId);
    if (!task)
      throw new NotFoundError(`No task with taskId ${JSON.stringify(taskId)}: record it with recordTask first.`, {
        taskId,
      });
    const learning = task.learning;
    if (learning?.state === 'learned' && learning.result)
      return { success: true, ...learning.result, alreadyLearned: true, taskId };
    throw new ConflictError(`Task ${JSON.stringify(taskId)} is being learned by another call; retry in a moment.`, {
      taskId,
    });
  }

  /**
   * The executions of `toolName` (null: of every tool) that learnFromTask counted in tool performance from a task's
   * plan steps (none when it counted none): its run's steps as `learn` counted them, for figures derived on read
   * (runs/run.tool-usage.ts).
   */
  async countedStepExecutions(task: ToolUsageTask, toolName: string | null): Promise<ToolExecution[]> {
    if (!task.learning?.done?.tools) return [];
    const plan = await this.runPlan(task, task.planId ?? null);
    const outcome = task.status === TaskStatus.COMPLETED ? TaskOutcome.COMPLETED : TaskOutcome.FAILED;
    const stepsCompleted = storedInt(task.successMetrics?.stepsCompleted);
    return runExecutions(task, plan, outcome, stepsCompleted).filter(
      (step) => toolName === null || step.toolName === toolName,
    );
  }

  /** The plan pattern and steps of the run (see the class comment). */
  private async runPlan(
    task: Pick<TaskDocument, 'steps' | 'goal' | 'goalPattern'>,
    planId: string | null,
  ): Promise<RunPlan> {
    const named = planId ? await this.loaders.plans.planPatternById.load(planId) : null;
    if (named)
      return {
        patternId: named.patternId,
        goalPattern: named.goalPattern,
        steps: task.steps?.length ? task.steps : named.steps,
      };
    const steps = task.steps ?? [];
    const template = taskGoalPattern(task);
    const patternId = steps.length
      ? planPatternId(
          template,
          steps.map((step) => step.action),
        )
      : null;
    return { patternId, goalPattern: template, steps };
  }

  private async learnPattern(
    task: TaskDocument,
    plan: RunPlan,
    outcome: TaskOutcome,
    executionTime: number,
    stepsCompleted: number,
    insights: string[],
    now: Date,
  ): Promise<void> {
    // A new pattern takes the goal's vector; a task recorded without one (imported) or by another embedder gets one now.
    const model = this.deps.embedder.signature;
    const storedVector =
      task.embedding_model && sameEmbeddingModel(task.embedding_model, model)
        ? fromStoredVector(task.embeddings?.goal_embedding)
        : null;
    const vector = storedVector ?? (await this.deps.embedder.embedOne(task.goal));
    const { created } = await this.plans.learnRun(
      {
        patternId: plan.patternId!,
        goalPattern: plan.goalPattern,
        steps: plan.steps,
        goal: task.goal,
        goalVector: toStoredVector(vector),
        model,
        success: outcome === TaskOutcome.COMPLETED,
        executionTime,
        issues: outcome === TaskOutcome.FAILED ? runIssues(plan.steps, stepsCompleted, insights) : [],
        at: task.createdAt,
      },
      now,
    );
    if (created) this.deps.search.forDb(this.db).upsert(PLAN_GOAL_SPACE.name, plan.patternId!, vector, task.goal);
  }
}
