import { ObjectId } from 'mongodb';
import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { EmbeddingsInfo } from '../shared/embeddings-info.type';
import { ConnectionType } from '../shared/connection';
import {
  storedDate,
  storedDateOrNull,
  storedEnum,
  storedFloatOrNull,
  storedInt,
  storedObject,
  storedText,
  storedTextList,
  storedTextOrNull,
  StoredReader,
} from '../shared/stored-values';
import {
  EXPERIENCE_FIELDS,
  EXPERIENCES_COLLECTION,
  ExperienceField,
  embeddingKey,
  type ExperienceDocument,
} from './experience.document';
import { Node } from '../shared/node';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import { EXPERIENCE_VALIDITY, memoryStatus } from '../shared/validity.filter';
import { MemoryStatus } from '../shared/validity.type';

export { EXPERIENCE_FIELDS, ExperienceField, embeddingKey };

/** How an experience ended; stored as the seed's lowercase strings (the enum's values). */
export enum ExperienceOutcome {
  SUCCESS = 'success',
  FAILURE = 'failure',
  PARTIAL_SUCCESS = 'partial_success',
  ABANDONED = 'abandoned',
}
registerEnumType(ExperienceOutcome, {
  name: 'ExperienceOutcome',
  description: "Final outcome of an experience; stored as 'success', 'failure', 'partial_success' or 'abandoned'.",
});
registerEnumType(ExperienceField, {
  name: 'ExperienceField',
  description: 'An embeddable text field of an experience; each has its own vector and its own search space.',
});

@ObjectType({
  simpleResolvers: true,
  description:
    'Structured feedback on an experience (the `feedback_signals` object), with typed accessors for the usual keys.',
})
export class FeedbackSignals {
  @Field(() => Float, { nullable: true, description: '`user_rating`, e.g. 1 to 5.' })
  userRating!: number | null;

  @Field(() => Boolean, { nullable: true, description: '`correction_needed`.' })
  correctionNeeded!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: '`helpful`: whether it helped (counts as a use).' })
  helpful!: boolean | null;

  @Field(() => String, { nullable: true, description: '`error_type`, e.g. API_error.' })
  errorType!: string | null;

  @Field(() => String, { nullable: true, description: '`comment`.' })
  comment!: string | null;

  @Field(() => GraphQLJSONObject, {
    description: 'Every key as stored (snake_case), including ones without an accessor.',
  })
  data!: Record<string, unknown>;
}

@ObjectType({
  simpleResolvers: true,
  description: "The stored vectors of an experience's embeddable fields (`embeddings.<field>_embedding`).",
})
export class ExperienceEmbeddings {
  @Field(() => [Float], { nullable: true })
  primaryGoalDescription!: number[] | null;

  @Field(() => [Float], { nullable: true })
  subTaskDescription!: number[] | null;

  @Field(() => [Float], { nullable: true })
  inputContextSummary!: number[] | null;

  @Field(() => [Float], { nullable: true })
  outputSummary!: number[] | null;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description:
    'What an agent did for one (sub-)task, how it went, and what was learned (collection eat_agent_experiences).',
})
export class Experience {
  @Field(() => ID, { description: '`experience_id` (a UUID unless the recorder chose one).' })
  experienceId!: string;

  @Field()
  primaryGoalDescription!: string;

  @Field()
  subTaskDescription!: string;

  @Field()
  initiatingAgentId!: string;

  @Field(() => [String])
  involvedComponents!: string[];

  @Field(() => String, { nullable: true })
  inputContextSummary!: string | null;

  @Field(() => GraphQLJSON, { nullable: true, description: 'A list of strings, or a structured object, as recorded.' })
  keyDecisionsMade!: unknown;

  @Field(() => ExperienceOutcome)
  finalOutcome!: ExperienceOutcome;

  @Field(() => String, { nullable: true })
  outputSummary!: string | null;

  @Field(() => FeedbackSignals, { nullable: true })
  feedbackSignals!: FeedbackSignals | null;

  @Field()
  timestamp!: Date;

  @Field(() => Int, { description: 'Version of the record schema (1).' })
  version!: number;

  @Field(() => String, { nullable: true })
  workflowId!: string | null;

  @Field(() => String, { nullable: true })
  sessionId!: string | null;

  @Field(() => String, { nullable: true, description: 'The end user the experience is about (`user_id`).' })
  userId!: string | null;

  @Field(() => [String])
  tags!: string[];

  @Field(() => Date, { nullable: true, description: EXPIRY_DESCRIPTIONS.stored })
  expiresAt!: Date | null;

  @Field(() => Int, {
    description:
      'Times this memory was recorded: a recordExperience of the same agent, user and outcome with the same goal and sub-task (see docs/lifecycle.md) counts one more instead of storing a copy.',
  })
  occurrences!: number;

  @Field({ description: 'When it was last recorded (its timestamp until it is recorded again).' })
  lastSeenAt!: Date;

  @Field(() => EmbeddingsInfo, {
    nullable: true,
    description: 'Provider, model and dimensions that made the stored vectors (null: unknown, e.g. imported).',
  })
  embeddingModel!: EmbeddingsInfo | null;

  @Field({ description: 'Valid from (default: when it was recorded).' })
  validFrom!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'Valid until (null: open). Superseding or retiring sets it to that moment.',
  })
  validUntil!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why it ended: the reason given to supersede or retire it.' })
  endedReason!: string | null;

  /** The replacement's experienceId (`supersededBy` loads it). */
  supersededById!: string | null;

  /**
   * Stored values no GraphQL field shows: the `_id` and recording key, of which `history` derives the `created` event
   * (see {@link recordedOf}), and the dedupe key, by which a search page collapses copies of a memory.
   */
  stored!: { id: unknown; recordedByKey: unknown; dedupeKey: unknown };
}

@ObjectType({ simpleResolvers: true, description: 'One search result: the experience and how it scored.' })
export class ExperienceSearchHit {
  @Field(() => Experience)
  experience!: Experience;

  @Field(() => Float, {
    description:
      'The ranking score in 0..1: relevance × recency × outcome × feedback × use (docs/search.md#ranking); the relevance alone with ranking { relevanceOnly: true }.',
  })
  score!: number;

  @Field(() => Float, {
    description:
      'Relevance to the query in 0..1. VECTOR: the vector score (negative counts as 0); KEYWORD: the keyword score; HYBRID: 0.5 × vector + 0.5 × keyword (a missing part counts 0). minScore applies to it.',
  })
  relevance!: number;

  @Field(() => Float, {
    description: 'Recency factor in [1 − recencyWeight, 1]: 1 − w × (1 − 0.5^(age in days / half-life)).',
  })
  recency!: number;

  @Field(() => Float, {
    description:
      'Outcome factor in [1 − outcomeWeight, 1]: 1 for SUCCESS, 1 − w for FAILURE (PARTIAL_SUCCESS 1 − w/2).',
  })
  outcome!: number;

  @Field(() => Float, {
    description:
      'Feedback factor in [1 − feedbackWeight, 1]: 1 − w × (1 − quality), quality the mean of the ratings (0–5 scale), corrections and helpful reports given, starting from a neutral 0.5.',
  })
  feedback!: number;

  @Field(() => Float, {
    description: 'Use factor in [1 − useWeight, 1]: 1 − w / (uses + 1), uses the times it was reported helpful.',
  })
  use!: number;

  @Field(() => Float, {
    nullable: true,
    description: 'Cosine similarity of the query and the best requested field (null when not scored by vector).',
  })
  vectorScore!: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      'BM25 relevance of the best requested field, normalised to 0..1 (min(1, bm25 / Σ idf of the query terms)); null when not scored by keyword.',
  })
  keywordScore!: number | null;

  @Field(() => ExperienceField, {
    description: 'The field that matched best (by vector score, else by keyword score).',
  })
  matchedField!: ExperienceField;

  @Field(() => Boolean, {
    description:
      "True when the matched field's text is longer than the embedding model reads: its vector (and vectorScore) stands for the beginning of the text only, while keywordScore covers all of it.",
  })
  matchedTextCut!: boolean;
}

export const ExperienceConnection = ConnectionType('Experience', Experience);

const OUTCOMES = Object.values(ExperienceOutcome);

/**
 * Maps a stored document to the GraphQL shape (missing lists become empty, dates parsed). Each field is read through
 * stored-values.ts, so a document another tool wrote with odd values still renders (an unknown outcome reads as
 * ABANDONED, an unreadable timestamp as the epoch).
 */
export function toExperience(doc: ExperienceDocument): Experience {
  const read = new StoredReader(EXPERIENCES_COLLECTION, doc.experience_id);
  const feedback = read.field('feedbackSignals', 'feedback_signals', storedObject(doc.feedback_signals));
  return read.attach({
    experienceId: read.field('experienceId', 'experience_id', storedText(doc.experience_id)),
    primaryGoalDescription: read.field(
      'primaryGoalDescription',
      'primary_goal_description',
      storedText(doc.primary_goal_description),
    ),
    subTaskDescription: read.field('subTaskDescription', 'sub_task_description', storedText(doc.sub_task_description)),
    initiatingAgentId: read.field('initiatingAgentId', 'initiating_agent_id', storedText(doc.initiating_agent_id)),
    involvedComponents: read.field(
      'involvedComponents',
      'involved_components',
      storedTextList(doc.involved_components),
    ),
    inputContextSummary: read.field(
      'inputContextSummary',
      'input_context_summary',
      storedTextOrNull(doc.input_context_summary),
    ),
    keyDecisionsMade: doc.key_decisions_made ?? null,
    finalOutcome: read.field(
      'finalOutcome',
      'final_outcome',
      storedEnum(normalizeOutcome(doc.final_outcome), OUTCOMES, ExperienceOutcome.ABANDONED),
    ),
    outputSummary: read.field('outputSummary', 'output_summary', storedTextOrNull(doc.output_summary)),
    feedbackSignals: doc.feedback_signals ? toFeedbackSignals(feedback) : null,
    timestamp: read.field('timestamp', 'timestamp', storedDate(doc.timestamp)),
    version: read.field('version', 'version', storedInt(doc.version, 1)),
    workflowId: read.field('workflowId', 'workflow_id', storedTextOrNull(doc.workflow_id)),
    sessionId: read.field('sessionId', 'session_id', storedTextOrNull(doc.session_id)),
    userId: read.field('userId', 'user_id', storedTextOrNull(doc.user_id)),
    tags: read.field('tags', 'tags', storedTextList(doc.tags)),
    expiresAt: read.field('expiresAt', 'expires_at', storedDateOrNull(doc.expires_at)),
    occurrences: read.field('occurrences', 'occurrences', storedInt(doc.occurrences ?? 1, 1)),
    lastSeenAt: read.field(
      'lastSeenAt',
      doc.last_seen_at == null ? 'timestamp' : 'last_seen_at',
      storedDate(doc.last_seen_at ?? doc.timestamp),
    ),
    embeddingModel: toEmbeddingModel(read, doc.experience_id, doc.embedding_model),
    // Missing: valid since it was recorded, which an imported document tells by its timestamp.
    validFrom: read.field('validFrom', 'valid_from', storedDate(doc.valid_from ?? doc.timestamp)),
    validUntil: read.field('validUntil', 'valid_until', storedDateOrNull(doc.valid_until)),
    endedReason: read.field('endedReason', 'ended_reason', storedTextOrNull(doc.ended_reason)),
    supersededById: read.field('supersededBy', 'superseded_by', storedTextOrNull(doc.superseded_by)),
    stored: { id: doc._id, recordedByKey: doc.recorded_by_key, dedupeKey: doc.dedupe_key },
  });
}

/** The stored `embedding_model`; each substituted part is reported as `embedding_model.<part>`. */
function toEmbeddingModel(read: StoredReader, id: unknown, stored: unknown): EmbeddingsInfo | null {
  if (stored === null || stored === undefined) return null;
  const model = read.field('embeddingModel', 'embedding_model', storedObject(stored));
  const readModel = new StoredReader(EXPERIENCES_COLLECTION, id);
  const part = <T>(name: keyof EmbeddingsInfo, value: T) => readModel.field(name, `embedding_model.${name}`, value);
  return readModel.attach({
    provider: part('provider', storedText(model.provider)),
    model: part('model', storedText(model.model)),
    dimensions: part('dimensions', storedInt(model.dimensions)),
  });
}

/** Tolerates imported spellings of the seed's outcomes ('Success', 'partial-success'). */
function normalizeOutcome(stored: unknown): string {
  return storedText(stored)
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

function toFeedbackSignals(data: Record<string, unknown>): FeedbackSignals {
  const typed = <T>(key: string, type: string): T | null => (typeof data[key] === type ? (data[key] as T) : null);
  return {
    userRating: storedFloatOrNull(data.user_rating),
    correctionNeeded: typed<boolean>('correction_needed', 'boolean'),
    helpful: typed<boolean>('helpful', 'boolean'),
    errorType: typed<string>('error_type', 'string'),
    comment: typed<string>('comment', 'string'),
    data,
  };
}

/** The stored vectors in GraphQL shape. */
export function toExperienceEmbeddings(embeddings: ExperienceDocument['embeddings']): ExperienceEmbeddings {
  const vector = (field: ExperienceField) => embeddings?.[embeddingKey(field)] ?? null;
  return {
    primaryGoalDescription: vector(ExperienceField.PRIMARY_GOAL),
    subTaskDescription: vector(ExperienceField.SUB_TASK),
    inputContextSummary: vector(ExperienceField.INPUT_CONTEXT),
    outputSummary: vector(ExperienceField.OUTPUT_SUMMARY),
  };
}

/** The standing of an experience at `now` (Experience.status: computed only when asked). */
export function experienceStatus(experience: Experience, now: Date): MemoryStatus {
  return memoryStatus(
    EXPERIENCE_VALIDITY,
    {
      [EXPERIENCE_VALIDITY.validFrom]: experience.validFrom,
      [EXPERIENCE_VALIDITY.validUntil]: experience.validUntil,
      [EXPERIENCE_VALIDITY.supersededBy]: experience.supersededById,
      [EXPERIENCE_VALIDITY.endedReason]: experience.endedReason,
      [EXPERIENCE_VALIDITY.expiresAt]: experience.expiresAt,
    },
    now,
  );
}

/** When an experience was recorded (its `_id`'s time; null for an id that is not an ObjectId) and with which key. */
export function recordedOf(experience: Experience): { at: Date; keyId: string | null } | null {
  const { id, recordedByKey } = experience.stored;
  if (!(id instanceof ObjectId)) return null;
  return { at: id.getTimestamp(), keyId: typeof recordedByKey === 'string' ? recordedByKey : null };
}
