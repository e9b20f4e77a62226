import { randomUUID } from 'node:crypto';
import { ValidationError } from '../../errors';
import { checkJsonInput } from '../shared/json-input';
import { expiryOf } from '../shared/expiry';
import { MAX_ID_LENGTH } from '../shared/limits';
import { checkScopeId } from '../shared/user-scope';
import { feedbackIncrements } from './experience.ranking';
import type { FeedbackSignalsInput, RecordExperienceInput, UpdateExperienceInput } from './experience.input';
import { EXPERIENCE_FIELDS, type ExperienceDocument } from './experience.document';

/** The fields an experience cannot lack (seed 000's **Required** fields that the caller provides). */
const REQUIRED_TEXT = ['primaryGoalDescription', 'subTaskDescription', 'initiatingAgentId'] as const;

/** The ids a caller chooses: each at most MAX_ID_LENGTH characters. */
const ID_FIELDS = ['experienceId', 'initiatingAgentId', 'workflowId', 'sessionId'] as const;

function checkIdLengths(input: Partial<Record<(typeof ID_FIELDS)[number], string | null>>, path: string): void {
  for (const key of ID_FIELDS) {
    const value = input[key];
    if (typeof value === 'string' && value.length > MAX_ID_LENGTH)
      throw new ValidationError(`${path}.${key} must be at most ${MAX_ID_LENGTH} characters.`, `${path}.${key}`);
  }
}

/** Largest `recordExperiences` batch. */
export const MAX_BATCH = 1000;

function blank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

/** An optional text: blank counts as absent. */
function optionalText(value: string | null | undefined): string | undefined {
  return value == null || value.trim() === '' ? undefined : value;
}

function checkVersion(version: number, field: string): void {
  if (!Number.isInteger(version) || version < 1)
    throw new ValidationError(`${field} must be a positive integer.`, field);
}

/** `key_decisions_made`: a list of strings, or a structured object (seed 000). */
function checkKeyDecisions(value: unknown, field: string): void {
  const strings = Array.isArray(value) && value.every((item) => typeof item === 'string');
  const object = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!strings && !object) throw new ValidationError(`${field} must be a list of strings or an object.`, field);
  checkJsonInput(value, field);
}

/** MongoDB field names: no `.` (a path separator) and no leading `$` (an operator). */
function checkKey(key: string, field: string): void {
  if (key === '' || key.includes('.') || key.startsWith('$')) {
    throw new ValidationError(`${field} has an invalid key ${JSON.stringify(key)} (no '.', no leading '$').`, field);
  }
}

/** The stored form of feedback: typed keys in snake_case, then `extra` keys as given (typed keys win). */
export function feedbackDocument(input: FeedbackSignalsInput, field: string): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  for (const key of Object.keys(input.extra ?? {})) checkKey(key, `${field}.extra`);
  checkJsonInput(input.extra, `${field}.extra`);
  Object.assign(document, input.extra ?? {});
  if (input.userRating != null) {
    if (!Number.isFinite(input.userRating))
      throw new ValidationError(`${field}.userRating must be a number.`, `${field}.userRating`);
    document.user_rating = input.userRating;
  }
  if (input.correctionNeeded != null) document.correction_needed = input.correctionNeeded;
  if (input.helpful != null) document.helpful = input.helpful;
  if (input.errorType != null) document.error_type = input.errorType;
  if (input.comment != null) document.comment = input.comment;
  return document;
}

/**
 * Validates a new experience and builds its document (without vectors). Every blank required field is named in one
 * BAD_USER_INPUT error (`extensions.fields`, dot paths under `path`).
 */
export function newExperienceDocument(input: RecordExperienceInput, path: string, now: Date): ExperienceDocument {
  const missing = REQUIRED_TEXT.filter((key) => blank(input[key])).map((key) => `${path}.${key}`);
  if (input.finalOutcome == null) missing.push(`${path}.finalOutcome`);
  if (missing.length) {
    throw new ValidationError(
      `Missing required field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}.`,
      missing[0],
      {
        fields: missing,
      },
    );
  }
  if (input.experienceId != null && blank(input.experienceId)) {
    throw new ValidationError(
      `${path}.experienceId must not be blank (omit it to get a generated UUID).`,
      `${path}.experienceId`,
    );
  }
  checkIdLengths(input, path);
  if (input.version != null) checkVersion(input.version, `${path}.version`);
  if (input.keyDecisionsMade != null) checkKeyDecisions(input.keyDecisionsMade, `${path}.keyDecisionsMade`);
  const validFrom = input.validFrom ?? now;
  checkValidity(validFrom, input.validUntil, path);
  const document: ExperienceDocument = {
    experience_id: input.experienceId ?? randomUUID(),
    primary_goal_description: input.primaryGoalDescription,
    sub_task_description: input.subTaskDescription,
    initiating_agent_id: input.initiatingAgentId,
    involved_components: input.involvedComponents ?? [],
    input_context_summary: optionalText(input.inputContextSummary),
    key_decisions_made: input.keyDecisionsMade ?? [],
    final_outcome: input.finalOutcome,
    output_summary: optionalText(input.outputSummary),
    feedback_signals: input.feedbackSignals
      ? feedbackDocument(input.feedbackSignals, `${path}.feedbackSignals`)
      : undefined,
    timestamp: input.timestamp ?? now,
    version: input.version ?? 1,
    workflow_id: input.workflowId ?? undefined,
    session_id: input.sessionId ?? undefined,
    user_id: checkScopeId(input.userId, `${path}.userId`),
    tags: input.tags ?? [],
    expires_at: expiryOf(input, now, path),
    valid_from: validFrom,
    valid_until: input.validUntil ?? undefined,
  };
  // The feedback given with the recording counts as the first of its running totals.
  if (document.feedback_signals) document.feedback_stats = { ...feedbackIncrements(document.feedback_signals) };
  // Absent optional fields are left out of the document rather than stored as null.
  for (const key of Object.keys(document) as (keyof ExperienceDocument)[])
    if (document[key] === undefined) delete document[key];
  return document;
}

/** validUntil, when given, must be after validFrom (BAD_USER_INPUT naming `<path>.validUntil`). */
export function checkValidity(validFrom: Date, validUntil: Date | null | undefined, path: string): void {
  if (validUntil != null && !(validUntil.getTime() > validFrom.getTime()))
    throw new ValidationError(`${path}.validUntil must be after validFrom.`, `${path}.validUntil`);
}

export interface ExperienceChanges {
  set: Record<string, unknown>;
  unset: string[];
}

/** Stored field of each updatable input field; lists cleared with null become empty lists. */
const UPDATABLE: Record<keyof UpdateExperienceInput, { field: string; required?: boolean; list?: boolean }> = {
  primaryGoalDescription: { field: 'primary_goal_description', required: true },
  subTaskDescription: { field: 'sub_task_description', required: true },
  initiatingAgentId: { field: 'initiating_agent_id', required: true },
  involvedComponents: { field: 'involved_components', list: true },
  inputContextSummary: { field: 'input_context_summary' },
  keyDecisionsMade: { field: 'key_decisions_made', list: true },
  finalOutcome: { field: 'final_outcome', required: true },
  outputSummary: { field: 'output_summary' },
  feedbackSignals: { field: 'feedback_signals' },
  timestamp: { field: 'timestamp', required: true },
  version: { field: 'version', required: true },
  workflowId: { field: 'workflow_id' },
  sessionId: { field: 'session_id' },
  userId: { field: 'user_id' },
  tags: { field: 'tags', list: true },
};

/**
 * Validates a partial update and translates it into `$set`/`$unset` of stored fields (vectors excluded): absent
 * keeps, null clears an optional field (required ones cannot be cleared), a blank optional text clears it too.
 */
export function experienceChanges(input: UpdateExperienceInput, path: string): ExperienceChanges {
  checkIdLengths(input, path);
  checkScopeId(input.userId, `${path}.userId`);
  const changes: ExperienceChanges = { set: {}, unset: [] };
  const cleared: string[] = [];
  for (const [key, { field, required, list }] of Object.entries(UPDATABLE) as [
    keyof UpdateExperienceInput,
    (typeof UPDATABLE)[keyof UpdateExperienceInput],
  ][]) {
    const value = input[key];
    if (value === undefined) continue;
    const name = `${path}.${key}`;
    const isText = typeof value === 'string';
    if (required && (value === null || (isText && blank(value)))) cleared.push(name);
    else if (value === null || (isText && blank(value) && (EXPERIENCE_FIELDS as string[]).includes(field))) {
      if (list) changes.set[field] = [];
      else changes.unset.push(field);
      if (key === 'feedbackSignals') changes.unset.push('feedback_stats');
    } else if (key === 'feedbackSignals') {
      // Replaced feedback: its running totals start again from it.
      changes.set[field] = feedbackDocument(value as FeedbackSignalsInput, name);
      changes.set.feedback_stats = { ...feedbackIncrements(changes.set[field] as Record<string, unknown>) };
    } else {
      if (key === 'version') checkVersion(value as number, name);
      if (key === 'keyDecisionsMade') checkKeyDecisions(value, name);
      changes.set[field] = value;
    }
  }
  if (cleared.length) {
    throw new ValidationError(
      `Required field${cleared.length > 1 ? 's' : ''} cannot be cleared: ${cleared.join(', ')}.`,
      cleared[0],
      {
        fields: cleared,
      },
    );
  }
  return changes;
}

/** The fields of `input` (GraphQL names) whose stored value differs between `before` and `after` an update. */
export function changedFields(
  input: UpdateExperienceInput,
  before: ExperienceDocument,
  after: ExperienceDocument,
): string[] {
  const stored = (document: ExperienceDocument, field: string) =>
    JSON.stringify((document as unknown as Record<string, unknown>)[field] ?? null);
  return (Object.keys(UPDATABLE) as (keyof UpdateExperienceInput)[]).filter(
    (key) => input[key] !== undefined && stored(before, UPDATABLE[key].field) !== stored(after, UPDATABLE[key].field),
  );
}
