import type { Document } from 'mongodb';
import type { RankingSignals } from '../../search/ranking';
import { embeddingKey, ExperienceField, type ExperienceDocument } from './experience.document';

/**
 * The learned signals of an experience (see src/search/ranking.ts for the factors they make):
 * - outcome: `final_outcome` — success 1, partial success 0.5, abandoned 0.25, failure 0;
 * - recency: the later of `timestamp` and `last_seen_at` (when it was recorded again);
 * - feedback: every `addExperienceFeedback` (and the feedback given when it was recorded) counts in `feedback_stats`:
 *   a `userRating` is an observation of quality rating / 5 (ratings are on a 0–5 scale, clamped), `correctionNeeded`
 *   one of quality 0 (true) or 1 (false), `helpful` one of quality 1 (true) or 0 (false);
 * - use: `feedback_stats.uses`, the times it was reported helpful after being recalled — feedback with
 *   `helpful: true`, or without `helpful` but with a `userRating` of 4 or more and no `correctionNeeded: true`.
 *
 * A document without `feedback_stats` (imported, or written before them) counts its `feedback_signals` as one feedback.
 */

/** Running totals of the feedback given to an experience (`feedback_stats`), kept by `$inc`. */
export interface FeedbackStats {
  /** Feedbacks given. */
  given: number;
  ratings: number;
  /** Sum of the ratings, each clamped to [0, MAX_RATING]. */
  rating_sum: number;
  /** correctionNeeded: true. */
  corrections: number;
  /** correctionNeeded: false. */
  confirmations: number;
  /** helpful: true. */
  helpful: number;
  /** helpful: false. */
  unhelpful: number;
  /** Reported helpful after being recalled (see the module comment): the use signal. */
  uses: number;
}

/** The top of the rating scale. */
export const MAX_RATING = 5;
/** A rating from which feedback without `helpful` reports the memory helpful. */
export const HELPFUL_RATING = 4;

const OUTCOME_VALUES: Record<string, number> = { success: 1, partial_success: 0.5, abandoned: 0.25, failure: 0 };

/** The stored fields the ranking reads of each candidate (besides validity and identity). */
export const RANKING_STORED = [
  'final_outcome',
  'timestamp',
  'last_seen_at',
  'feedback_stats',
  'feedback_signals.user_rating',
  'feedback_signals.correction_needed',
  'feedback_signals.helpful',
];

/** The stored vector that diversity compares (the primary goal's). */
export const DIVERSITY_VECTOR = `embeddings.${embeddingKey(ExperienceField.PRIMARY_GOAL)}`;

/** What one feedback (its stored keys) adds to `feedback_stats`. */
export function feedbackIncrements(signals: Record<string, unknown>): FeedbackStats {
  const rating =
    typeof signals.user_rating === 'number' && Number.isFinite(signals.user_rating) ? signals.user_rating : null;
  const correction = typeof signals.correction_needed === 'boolean' ? signals.correction_needed : null;
  const helpful = typeof signals.helpful === 'boolean' ? signals.helpful : null;
  const reportsHelpful = helpful ?? (rating !== null && rating >= HELPFUL_RATING && correction !== true);
  return {
    given: 1,
    ratings: rating === null ? 0 : 1,
    rating_sum: rating === null ? 0 : Math.min(MAX_RATING, Math.max(0, rating)),
    corrections: correction === true ? 1 : 0,
    confirmations: correction === false ? 1 : 0,
    helpful: helpful === true ? 1 : 0,
    unhelpful: helpful === false ? 1 : 0,
    uses: reportsHelpful ? 1 : 0,
  };
}

/** The `$inc` of `feedback_stats` for one feedback. */
export function feedbackStatsIncrement(signals: Record<string, unknown>): Document {
  return Object.fromEntries(
    Object.entries(feedbackIncrements(signals)).map(([key, value]) => [`feedback_stats.${key}`, value]),
  );
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function time(value: unknown): number | null {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  const ms = date?.getTime();
  return ms === undefined || Number.isNaN(ms) ? null : ms;
}

/** The ranking signals of a stored experience (read with at least RANKING_STORED). */
export function experienceSignals(document: ExperienceDocument): RankingSignals {
  const raw = document as unknown as Record<string, unknown>;
  const statsStored = raw.feedback_stats;
  const signals = raw.feedback_signals;
  const stats: Record<string, unknown> =
    statsStored !== null && typeof statsStored === 'object'
      ? (statsStored as Record<string, unknown>)
      : signals !== null && typeof signals === 'object'
        ? { ...feedbackIncrements(signals as Record<string, unknown>) }
        : {};
  const ratings = count(stats.ratings);
  const helpful = count(stats.helpful);
  const observations =
    ratings + count(stats.corrections) + count(stats.confirmations) + helpful + count(stats.unhelpful);
  const qualitySum =
    Math.min(count(stats.rating_sum), ratings * MAX_RATING) / MAX_RATING + count(stats.confirmations) + helpful;
  const at = Math.max(time(document.timestamp) ?? -Infinity, time(document.last_seen_at) ?? -Infinity);
  const outcome =
    typeof document.final_outcome === 'string' ? OUTCOME_VALUES[normalOutcome(document.final_outcome)] : undefined;
  return {
    at: Number.isFinite(at) ? at : null,
    outcome: outcome ?? null,
    observations,
    qualitySum,
    helpful: count(stats.uses),
  };
}

function normalOutcome(stored: string): string {
  return stored
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}
