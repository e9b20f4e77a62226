import type { GraphQLResolveInfo } from 'graphql';
import { fieldNodesAt, subfields } from '../shared/selection';
import { EXPERIENCE_FIELDS } from './experience.document';
import { DEDUPE_IDENTITY_FIELDS } from './experience.dedupe';

/** The stored fields each field of Experience reads (`embeddings` loads the vectors by id, apart). */
const STORED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  __typename: [],
  experienceId: [],
  primaryGoalDescription: ['primary_goal_description'],
  subTaskDescription: ['sub_task_description'],
  initiatingAgentId: ['initiating_agent_id'],
  involvedComponents: ['involved_components'],
  inputContextSummary: ['input_context_summary'],
  keyDecisionsMade: ['key_decisions_made'],
  finalOutcome: ['final_outcome'],
  outputSummary: ['output_summary'],
  feedbackSignals: ['feedback_signals'],
  timestamp: ['timestamp'],
  version: ['version'],
  workflowId: ['workflow_id'],
  sessionId: ['session_id'],
  userId: ['user_id'],
  tags: ['tags'],
  expiresAt: ['expires_at'],
  occurrences: ['occurrences'],
  lastSeenAt: ['last_seen_at', 'timestamp'],
  embeddingModel: ['embedding_model'],
  embeddings: [],
  session: ['session_id'],
  // Embeds the goal when the experience has no stored vector; leaves out the experience's copies (its dedupe identity).
  similar: [...DEDUPE_IDENTITY_FIELDS],
  // Missing valid_from reads as the timestamp.
  validFrom: ['valid_from', 'timestamp'],
  validUntil: ['valid_until'],
  endedReason: ['ended_reason'],
  status: ['valid_from', 'valid_until', 'superseded_by', 'ended_reason', 'expires_at'],
  supersededBy: ['superseded_by'],
  supersedes: [],
  // An `expired` event is derived from valid_until, the `created` one from the _id and the recording key.
  history: ['valid_until', '_id', 'recorded_by_key'],
};

/**
 * The stored fields searchExperiences must read: those of the hits' `experience`, and every embedded text when
 * `matchedTextCut` is selected (which field matches is known only after the search).
 */
export function searchedExperienceFields(info: GraphQLResolveInfo): string[] | null {
  const fields = experienceFields(info, ['experience']);
  if (!fields || !subfields(fieldNodesAt(info, []), info.fragments).has('matchedTextCut')) return fields;
  return [...new Set([...fields, ...EXPERIENCE_FIELDS])].sort();
}

/**
 * The stored fields a page of experiences must read for the Experience selected at `path` (e.g. `['edges', 'node']`),
 * with `experience_id`; null (whole documents, without vectors) when a selected field is not listed above.
 */
export function experienceFields(info: GraphQLResolveInfo, path: readonly string[]): string[] | null {
  const fields = new Set(['experience_id']);
  for (const name of subfields(fieldNodesAt(info, path), info.fragments).keys()) {
    const stored = STORED_FIELDS[name];
    if (!stored) return null;
    stored.forEach((field) => fields.add(field));
  }
  return [...fields].sort();
}
