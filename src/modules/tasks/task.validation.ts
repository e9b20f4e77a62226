import { ObjectId } from 'mongodb';
import { ValidationError } from '../../errors';
import { goalPattern } from '../plans/plan.goal-pattern';
import type { PlanStepDocument } from '../plans/plan.document';
import { expiryOf } from '../shared/expiry';
import { MAX_ID_LENGTH } from '../shared/limits';
import { checkScopeId } from '../shared/user-scope';
import type { PlanStepInput, RecordTaskInput, SuccessMetricsInput } from './task.input';
import type { SuccessMetricsDocument, TaskDocument } from './task.document';

export const MAX_TEXT_LENGTH = 10_000;
export { MAX_ID_LENGTH };
export const MAX_STEPS = 200;

/** Trimmed required text; blank or longer than `max` is BAD_USER_INPUT naming `field`. */
export function requiredText(value: string, field: string, max = MAX_TEXT_LENGTH): string {
  const text = value.trim();
  if (!text) throw new ValidationError(`${field} must not be blank.`, field);
  if (text.length > max) throw new ValidationError(`${field} must be at most ${max} characters.`, field);
  return text;
}

/** Trimmed optional text: null when absent or blank. */
export function optionalText(value: string | null | undefined, field: string, max = MAX_ID_LENGTH): string | null {
  return value == null || !value.trim() ? null : requiredText(value, field, max);
}

/** Steps sorted by `order` (default: position from 1), each with an id (default `step-<order>`); orders are distinct. */
export function checkSteps(steps: readonly PlanStepInput[] | null | undefined, field: string): PlanStepDocument[] {
  const list = steps ?? [];
  if (list.length > MAX_STEPS) throw new ValidationError(`A plan can have at most ${MAX_STEPS} steps.`, field);
  const checked = list.map((step, i) => {
    const order = step.order ?? i + 1;
    if (order < 0) throw new ValidationError('order must be ≥ 0.', `${field}.${i}.order`);
    return {
      id: optionalText(step.id, `${field}.${i}.id`) ?? `step-${order}`,
      action: requiredText(step.action, `${field}.${i}.action`, MAX_ID_LENGTH),
      order,
    };
  });
  const orders = new Set(checked.map((step) => step.order));
  if (orders.size !== checked.length) throw new ValidationError('Step orders must be distinct.', field);
  return checked.sort((a, b) => a.order - b.order);
}

export function checkMetrics(metrics: SuccessMetricsInput | null | undefined, field: string): SuccessMetricsDocument {
  const value = metrics ?? { executionTime: 0, stepsCompleted: 0, retries: 0, userInputsRequired: 0 };
  if (!Number.isFinite(value.executionTime) || value.executionTime < 0) {
    throw new ValidationError('executionTime must be a finite number of milliseconds ≥ 0.', `${field}.executionTime`);
  }
  for (const name of ['stepsCompleted', 'retries', 'userInputsRequired'] as const) {
    if (value[name] < 0) throw new ValidationError(`${name} must be ≥ 0.`, `${field}.${name}`);
  }
  return {
    executionTime: value.executionTime,
    stepsCompleted: value.stepsCompleted,
    retries: value.retries ?? 0,
    userInputsRequired: value.userInputsRequired ?? 0,
  };
}

/** A new task document from an input, checked; its vectors are added by the caller. */
export function newTaskDocument(input: RecordTaskInput, now: Date): TaskDocument {
  const goal = requiredText(input.goal, 'input.goal');
  const expiresAt = expiryOf(input, now);
  return {
    taskId: optionalText(input.taskId, 'input.taskId') ?? new ObjectId().toHexString(),
    originalQuery: requiredText(input.originalQuery, 'input.originalQuery'),
    goal,
    planId: optionalText(input.planId, 'input.planId'),
    status: input.status,
    successMetrics: checkMetrics(input.successMetrics, 'input.successMetrics'),
    createdAt: input.createdAt ?? now,
    goalPattern: goalPattern(goal),
    steps: checkSteps(input.steps, 'input.steps'),
    agentType: input.agentType ?? null,
    context: optionalText(input.context, 'input.context'),
    ...(input.userId != null ? { user_id: checkScopeId(input.userId, 'input.userId') } : {}),
    patternId: null,
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  };
}
