/**
 * The signal slices of the retrieval evaluation: the same goal recorded twice (or more) where only a learned signal
 * should decide the order. Each slice draws its goals from the corpus (corpus.ts), so the twins sit among the set's
 * near-duplicates; a twin takes the sub-task and output of other actions of the same goal (texts the corpus has too,
 * so no new embeddings), and agents of its own, so that no twin is another's duplicate:
 * - `outcome`: one twin SUCCESS, the other FAILURE; right when the SUCCESS twin ranks above the FAILURE one;
 * - `feedback`: both SUCCESS; one gets `userRating: 0, correctionNeeded: true` three times; right when it ranks below;
 * - `recency`: one recorded 0–30 days ago, the other 90–730 days ago; right when the new one ranks above;
 * - `duplicates`: five copies of the goal (other sub-tasks); measured by the distinct goals in the top 5.
 * Each slice asks for its goal in other word forms (the `word-form` way of corpus.ts).
 * The corpus itself gets noise (`corpusSignals`): most experiences succeeded, some failed, ages up to a year, a fifth
 * with one feedback, so the relevance slices measure what the signals cost when the answer is old or failed.
 */
import { seededRandom } from '../vectors';
import { ACTIONS, COMPONENTS, PROBLEMS } from './facets';
import { OUTPUTS, SUB_TASKS, fill, queryText, type EvalExperience, type EvalSet } from './corpus';

export const SIGNAL_SLICES = ['outcome', 'feedback', 'recency', 'duplicates'] as const;
export type SignalSlice = (typeof SIGNAL_SLICES)[number];

const DAY_MS = 86_400_000;

export interface SignalRecord {
  experienceId: string;
  primaryGoalDescription: string;
  subTaskDescription: string;
  inputContextSummary: string;
  outputSummary: string;
  initiatingAgentId: string;
  finalOutcome: 'SUCCESS' | 'FAILURE' | 'PARTIAL_SUCCESS' | 'ABANDONED';
  timestamp?: string;
  feedbackSignals?: { userRating: number; correctionNeeded: boolean };
}

export interface SignalQuery {
  slice: SignalSlice;
  text: string;
  half: 'tuning' | 'held-out';
  /** The twin that should rank first, and the one that should rank below it (duplicates: the copies' goal). */
  better: string;
  worse: string;
  goal: string;
}

export interface SignalSet {
  /** The corpus with noise in its signals, then the twins. */
  records: SignalRecord[];
  /** Experiences to rate down three times (the feedback slice). */
  ratedDown: string[];
  queries: SignalQuery[];
}

/** The corpus as recorded in the signal database: outcomes, ages and feedback drawn at random (seeded). */
function corpusSignals(experiences: EvalExperience[], now: number, random: () => number): SignalRecord[] {
  return experiences.map((e) => {
    const draw = random();
    const finalOutcome =
      draw < 0.7 ? 'SUCCESS' : draw < 0.8 ? 'PARTIAL_SUCCESS' : draw < 0.95 ? 'FAILURE' : 'ABANDONED';
    const record: SignalRecord = {
      experienceId: e.id,
      primaryGoalDescription: e.primaryGoalDescription,
      subTaskDescription: e.subTaskDescription,
      inputContextSummary: e.inputContextSummary,
      outputSummary: e.outputSummary,
      initiatingAgentId: 'eval',
      finalOutcome,
      timestamp: new Date(now - random() * 365 * DAY_MS).toISOString(),
    };
    if (random() < 0.2)
      record.feedbackSignals = { userRating: Math.round(random() * 5), correctionNeeded: random() < 0.2 };
    return record;
  });
}

/** The signal slices over `set` (`perSlice` goals each), their records and queries. */
export function buildSignalSet(set: EvalSet, perSlice = 40, now = Date.now()): SignalSet {
  const random = seededRandom(4301);
  const records = corpusSignals(set.experiences, now, random);
  const ratedDown: string[] = [];
  const queries: SignalQuery[] = [];
  const used = new Set(set.experienceQueries.map((q) => q.target));
  const twin = (e: EvalExperience, id: string, action: number, extra: Partial<SignalRecord>): SignalRecord => {
    const c = COMPONENTS[e.component].canonical;
    const p = PROBLEMS[e.problem].canonical;
    return {
      experienceId: id,
      primaryGoalDescription: e.primaryGoalDescription,
      subTaskDescription: fill(SUB_TASKS[action], { c }),
      inputContextSummary: e.inputContextSummary,
      outputSummary: fill(OUTPUTS[action], { p }),
      initiatingAgentId: id,
      finalOutcome: 'SUCCESS',
      ...extra,
    };
  };
  /** `count` actions other than the goal's own, in random order. */
  const otherActions = (e: EvalExperience, count: number) => {
    const others = ACTIONS.map((_, a) => a).filter((a) => a !== e.action);
    for (let i = others.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [others[i], others[j]] = [others[j], others[i]];
    }
    return others.slice(0, count);
  };
  for (const slice of SIGNAL_SLICES) {
    for (let i = 0; i < perSlice; i++) {
      let e: EvalExperience;
      do e = set.experiences[Math.floor(random() * set.experiences.length)];
      while (used.has(e.id));
      used.add(e.id);
      const id = `${slice}-${String(i).padStart(2, '0')}`;
      const [a, b, ...rest] = otherActions(e, 5);
      // Which twin is recorded first (and so has the smaller id) is drawn, so that ties cannot decide.
      const [betterId, worseId] = random() < 0.5 ? [`${id}-a`, `${id}-b`] : [`${id}-b`, `${id}-a`];
      if (slice === 'outcome') {
        records.push(twin(e, betterId, a, {}), twin(e, worseId, b, { finalOutcome: 'FAILURE' }));
      } else if (slice === 'feedback') {
        records.push(twin(e, betterId, a, {}), twin(e, worseId, b, {}));
        ratedDown.push(worseId);
      } else if (slice === 'recency') {
        const age = (low: number, high: number) => new Date(now - (low + random() * (high - low)) * DAY_MS);
        records.push(
          twin(e, betterId, a, { timestamp: age(0, 30).toISOString() }),
          twin(e, worseId, b, { timestamp: age(90, 730).toISOString() }),
        );
      } else {
        records.push(...[a, b, ...rest].map((action, k) => twin(e, `${id}-${k}`, action, {})));
      }
      // Word-form queries find their goal (HYBRID hit@3 1.0 on the set), so the slices measure the order alone.
      queries.push({
        slice,
        text: queryText('word-form', COMPONENTS[e.component], PROBLEMS[e.problem], ACTIONS[e.action], random),
        half: i % 2 === 0 ? 'tuning' : 'held-out',
        better: betterId,
        worse: worseId,
        goal: e.primaryGoalDescription,
      });
    }
  }
  return { records, ratedDown, queries };
}
