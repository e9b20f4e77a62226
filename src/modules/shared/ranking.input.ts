import { Field, Float, InputType } from 'type-graphql';
import { ValidationError } from '../../errors';
import { DEFAULT_RANKING, RELEVANCE_ONLY, type RankingWeights } from '../../search/ranking';

@InputType({
  description:
    "How learned signals weigh on a search hit's relevance (docs/search.md#ranking). Each signal multiplies the relevance by a factor in [1 − weight, 1]; a weight of 0 turns it off. Absent fields take the defaults.",
})
export class RankingInput {
  @Field(() => Boolean, {
    nullable: true,
    description: 'true: rank by relevance alone (every weight 0); the weights below are then not allowed.',
  })
  relevanceOnly?: boolean | null;

  @Field(() => Float, {
    nullable: true,
    description: `Days after which recency halves (> 0); default ${DEFAULT_RANKING.recencyHalfLifeDays}.`,
  })
  recencyHalfLifeDays?: number | null;

  @Field(() => Float, {
    nullable: true,
    description: `Weight of recency (0–1); default ${DEFAULT_RANKING.recencyWeight}.`,
  })
  recencyWeight?: number | null;

  @Field(() => Float, {
    nullable: true,
    description: `Weight of the outcome (0–1): a failure is demoted by this much; default ${DEFAULT_RANKING.outcomeWeight}.`,
  })
  outcomeWeight?: number | null;

  @Field(() => Float, {
    nullable: true,
    description: `Weight of the feedback given (ratings, corrections; 0–1); default ${DEFAULT_RANKING.feedbackWeight}.`,
  })
  feedbackWeight?: number | null;

  @Field(() => Float, {
    nullable: true,
    description: `Weight of use: how often it was reported helpful (0–1); default ${DEFAULT_RANKING.useWeight}.`,
  })
  useWeight?: number | null;
}

/** The `diversity` argument's description. */
export const DIVERSITY =
  '0 (default): best first. Otherwise each next hit is chosen by maximal marginal relevance, (1 − diversity) × score − diversity × its highest similarity with the hits above it, so a page shows different memories (0 to 1; 0.5 is a good start).';

const WEIGHTS = ['recencyWeight', 'outcomeWeight', 'feedbackWeight', 'useWeight'] as const;

/**
 * The weights a `ranking` argument (at `field`) asks for: the defaults for what it leaves out. A weight outside
 * [0, 1], a half-life that is not a positive number, or weights beside `relevanceOnly: true` are BAD_USER_INPUT naming
 * the field.
 */
export function rankingWeights(input: RankingInput | null | undefined, field = 'ranking'): RankingWeights {
  if (!input) return { ...DEFAULT_RANKING };
  const halfLife = input.recencyHalfLifeDays;
  if (halfLife != null && !(Number.isFinite(halfLife) && halfLife > 0))
    throw new ValidationError(
      `${field}.recencyHalfLifeDays must be a number of days above 0.`,
      `${field}.recencyHalfLifeDays`,
    );
  for (const name of WEIGHTS) {
    const weight = input[name];
    if (weight != null && !(Number.isFinite(weight) && weight >= 0 && weight <= 1))
      throw new ValidationError(`${field}.${name} must be from 0 to 1.`, `${field}.${name}`);
  }
  if (input.relevanceOnly) {
    const given = [...WEIGHTS, 'recencyHalfLifeDays' as const].find((name) => input[name] != null);
    if (given)
      throw new ValidationError(`${field}.${given} cannot be given with relevanceOnly: true.`, `${field}.${given}`);
    return { ...RELEVANCE_ONLY };
  }
  return {
    recencyHalfLifeDays: halfLife ?? DEFAULT_RANKING.recencyHalfLifeDays,
    recencyWeight: input.recencyWeight ?? DEFAULT_RANKING.recencyWeight,
    outcomeWeight: input.outcomeWeight ?? DEFAULT_RANKING.outcomeWeight,
    feedbackWeight: input.feedbackWeight ?? DEFAULT_RANKING.feedbackWeight,
    useWeight: input.useWeight ?? DEFAULT_RANKING.useWeight,
  };
}

/** The `diversity` argument, checked: a number from 0 to 1 (BAD_USER_INPUT naming `field` otherwise). */
export function diversityOf(diversity: number | null | undefined, field = 'diversity'): number {
  if (diversity == null) return 0;
  if (!(Number.isFinite(diversity) && diversity >= 0 && diversity <= 1))
    throw new ValidationError(`${field} must be from 0 to 1.`, field);
  return diversity;
}
