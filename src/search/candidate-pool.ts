import type { FusedHit } from './fusion';

/** A candidate of a pool: its id and an upper bound on its fused score, known before its exact score is. */
export interface BoundedCandidate {
  id: string;
  upper: number;
}

/** The order of fused hits (see `fuse`, weighted): best score first, then the smaller id. */
export function byFusedOrder(a: FusedHit, b: FusedHit): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** How many candidates a completion takes at least: one call per space and part, so not one candidate at a time. */
const COMPLETION_BATCH = 16;

/**
 * A search's candidate pool, scored exactly only as far as a page needs. Each candidate comes with an upper bound on
 * its fused score (from the lists that found it: its known parts, and for each list that did not, that list's lowest
 * score); its exact score costs a completion (the parts it lacks, read from the other spaces). `take` and `above`
 * complete candidates in the order of their bounds and stop once no remaining bound reaches what they must return, so
 * what they return is what a fully scored pool would: the same hits, scores and order.
 */
export class CandidatePool {
  private readonly candidates: BoundedCandidate[];
  private next = 0;
  /** Completed and not yet handed out, in fused order. */
  private scored: FusedHit[] = [];

  /**
   * @param complete the exact fused hits of the given candidates (those below a minimum score left out)
   */
  constructor(
    candidates: BoundedCandidate[],
    private readonly complete: (ids: string[]) => Promise<FusedHit[]>,
  ) {
    this.candidates = [...candidates].sort((a, b) => b.upper - a.upper || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** A pool whose hits are scored already. */
  static scored(hits: FusedHit[]): CandidatePool {
    const byId = new Map(hits.map((hit) => [hit.id, hit]));
    return new CandidatePool(
      hits.map((hit) => ({ id: hit.id, upper: hit.score })),
      async (ids) => ids.map((id) => byId.get(id)!),
    );
  }

  /** The best `n` of the pool not handed out yet, in fused order (fewer when the pool has fewer). */
  async take(n: number): Promise<FusedHit[]> {
    // Ties with the n-th are completed too: a smaller id ranks first.
    while (this.left && (this.scored.length < n || this.scored[n - 1].score <= this.nextUpper))
      await this.completeNext(Math.max(COMPLETION_BATCH, n - this.scored.length));
    return this.scored.splice(0, n);
  }

  /** Every hit not handed out yet whose score is above `bar`, in fused order. */
  async above(bar: number): Promise<FusedHit[]> {
    while (this.left && this.nextUpper > bar) await this.completeNext(COMPLETION_BATCH);
    const end = this.scored.findIndex((hit) => !(hit.score > bar));
    return this.scored.splice(0, end < 0 ? this.scored.length : end);
  }

  /** Every hit not handed out yet, in fused order. */
  async all(): Promise<FusedHit[]> {
    if (this.left) await this.completeNext(this.left);
    return this.scored.splice(0);
  }

  private get left(): number {
    return this.candidates.length - this.next;
  }

  private get nextUpper(): number {
    return this.candidates[this.next].upper;
  }

  private async completeNext(n: number): Promise<void> {
    const ids = this.candidates.slice(this.next, this.next + n).map((candidate) => candidate.id);
    this.next += ids.length;
    this.scored.push(...(await this.complete(ids)));
    this.scored.sort(byFusedOrder);
  }
}

/** A document's best score in one part of a hybrid search, and the field of the space that gave it. */
export interface PartBest<F> {
  score: number;
  field: F;
}

/**
 * One part (vector or keyword) of a hybrid pool over several spaces, one per field: each candidate's scores known from
 * the spaces' lists, and per space a bound on the scores its list left out: its lowest score when it is full (a
 * document it missed scores no more); when it is shorter than k, the floor it was searched with (documents below it
 * were left out), or none (it holds every document with a score).
 */
class Part<F> {
  private readonly known = new Map<string, Array<{ score: number } | null | undefined>>();
  private readonly floors: Array<number | null>;

  constructor(
    private readonly fields: readonly F[],
    lists: ReadonlyArray<ReadonlyArray<{ id: string; score: number }>>,
    k: number,
    private readonly score: PartScores,
    searchedAbove: ReadonlyArray<number | undefined> = [],
  ) {
    this.floors = lists.map((list, space) =>
      list.length >= k ? list.reduce((low, hit) => Math.min(low, hit.score), Infinity) : (searchedAbove[space] ?? null),
    );
    lists.forEach((list, space) => {
      for (const hit of list) {
        const scores = this.scoresOf(hit.id);
        // A list holds a document once; should it not, its best entry counts.
        if (!scores[space] || hit.score > scores[space]!.score) scores[space] = hit;
      }
    });
  }

  /** The most `id`'s best part can be (null: it has none). */
  upper(id: string): number | null {
    const scores = this.scoresOf(id);
    let upper = bestKnown(scores);
    for (const space of this.open(scores)) upper = Math.max(upper, this.floors[space]!);
    return upper === -Infinity ? null : upper;
  }

  /** Scores the candidates in the spaces that could still raise their best part. */
  async complete(ids: readonly string[]): Promise<void> {
    const wanted: string[][] = this.fields.map(() => []);
    for (const id of ids) for (const space of this.open(this.scoresOf(id))) wanted[space].push(id);
    await Promise.all(
      wanted.map(async (missing, space) => {
        if (!missing.length) return;
        const scored = await this.score(space, missing);
        missing.forEach((id, i) => (this.scoresOf(id)[space] = scored[i]));
      }),
    );
  }

  /** `id`'s best part once completed: the first field of the highest score (as over full lists), or undefined. */
  best(id: string): PartBest<F> | undefined {
    const scores = this.scoresOf(id);
    let best: PartBest<F> | undefined;
    scores.forEach((hit, space) => {
      if (hit && (!best || hit.score > best.score)) best = { score: hit.score, field: this.fields[space] };
    });
    return best;
  }

  /**
   * The spaces whose list missed the document and whose bound is not below its best known score: only there can its
   * score still raise (or, tied, move to an earlier field) its best part. Elsewhere its score is below its best.
   */
  private open(scores: Array<{ score: number } | null | undefined>): number[] {
    const best = bestKnown(scores);
    const open: number[] = [];
    this.floors.forEach((floor, space) => {
      if (scores[space] === undefined && floor !== null && floor >= best) open.push(space);
    });
    return open;
  }

  private scoresOf(id: string): Array<{ score: number } | null | undefined> {
    let scores = this.known.get(id);
    if (!scores) this.known.set(id, (scores = this.fields.map(() => undefined)));
    return scores;
  }
}

function bestKnown(scores: ReadonlyArray<{ score: number } | null | undefined>): number {
  let best = -Infinity;
  for (const hit of scores) if (hit && hit.score > best) best = hit.score;
  return best;
}

/** Scores of one part for the listed documents of one space, in order (null: the document has none there). */
export type PartScores = (space: number, ids: string[]) => Promise<Array<{ score: number } | null>>;

/** A list of one part to fuse: each document's best score and its field. */
export type PartList<F> = Array<{ id: string; score: number; field: F }>;

/**
 * The pool of a hybrid search over one space per field: `ids` (the candidates), bounded by the spaces' vector and
 * keyword lists (each the top `k` of its space, or of those above its floor), completed on demand by `scoreVectors`
 * and `scoreKeywords`, fused by `fuse`. As a candidate is completed, its best parts enter `vectorBest` and
 * `keywordBest`.
 */
export function hybridPool<F>(options: {
  fields: readonly F[];
  ids: readonly string[];
  k: number;
  vectorLists: ReadonlyArray<ReadonlyArray<{ id: string; score: number }>>;
  keywordLists: ReadonlyArray<ReadonlyArray<{ id: string; score: number }>>;
  /** The floor each keyword list was searched with (see KeywordTopOptions.floor), if any. */
  keywordFloors?: ReadonlyArray<number | undefined>;
  scoreVectors: PartScores;
  scoreKeywords: PartScores;
  fuse: (lists: { vector: PartList<F>; keyword: PartList<F> }) => FusedHit[];
}): { pool: CandidatePool; vectorBest: Map<string, PartBest<F>>; keywordBest: Map<string, PartBest<F>> } {
  const parts = {
    vector: new Part(options.fields, options.vectorLists, options.k, options.scoreVectors),
    keyword: new Part(options.fields, options.keywordLists, options.k, options.scoreKeywords, options.keywordFloors),
  };
  const best = { vector: new Map<string, PartBest<F>>(), keyword: new Map<string, PartBest<F>>() };
  const lists = (each: (part: Part<F>, id: string) => PartBest<F> | undefined, ids: readonly string[]) => {
    const list = (part: Part<F>) =>
      ids.flatMap((id) => {
        const found = each(part, id);
        return found ? [{ id, ...found }] : [];
      });
    return { vector: list(parts.vector), keyword: list(parts.keyword) };
  };
  // The bounds name no field: the exact parts replace them.
  const uppers = options.fuse(
    lists((part, id) => {
      const upper = part.upper(id);
      return upper === null ? undefined : { score: upper, field: options.fields[0] };
    }, options.ids),
  );
  const pool = new CandidatePool(
    uppers.map((hit) => ({ id: hit.id, upper: hit.score })),
    async (ids) => {
      await Promise.all([parts.vector.complete(ids), parts.keyword.complete(ids)]);
      const exact = lists((part, id) => part.best(id), ids);
      for (const name of ['vector', 'keyword'] as const)
        for (const { id, score, field } of exact[name]) best[name].set(id, { score, field });
      return options.fuse(exact);
    },
  );
  return { pool, vectorBest: best.vector, keywordBest: best.keyword };
}
