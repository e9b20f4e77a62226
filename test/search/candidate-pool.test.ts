import fc from 'fast-check';
import { CandidatePool, hybridPool, type PartList } from '../../src/search/candidate-pool';
import { HYBRID_WEIGHTS, fuse, type FusedHit } from '../../src/search/fusion';

type Scores = Array<Array<number | null>>; // [document][space]

const fuseParts = (minScore?: number) => (lists: { vector: PartList<string>; keyword: PartList<string> }) =>
  fuse(
    [
      { name: 'vector', weight: HYBRID_WEIGHTS.vector, hits: lists.vector },
      { name: 'keyword', weight: HYBRID_WEIGHTS.keyword, hits: lists.keyword },
    ],
    { minScore },
  );

/** Each document's best score over the spaces (the first space of the highest) as a fusion list. */
function bestList(scores: Scores, fields: string[], ids: string[]): PartList<string> {
  return ids.flatMap((id) => {
    let best: { id: string; score: number; field: string } | undefined;
    scores[Number(id.slice(1))].forEach((score, space) => {
      if (score !== null && (!best || score > best.score)) best = { id, score, field: fields[space] };
    });
    return best ? [best] : [];
  });
}

/** Space `space`'s top k of the documents scoring at least `floor`, best first (ties: smaller id). */
function topList(scores: Scores, space: number, k: number, floor = -Infinity) {
  return scores
    .flatMap((row, d) => (row[space] !== null && row[space]! >= floor ? [{ id: `d${d}`, score: row[space]! }] : []))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

/** A score from a few values, so that documents tie within a space and across spaces. */
const score = fc.oneof(fc.constantFrom(null, 0, 0.25, 0.5, 1), fc.double({ min: -0.2, max: 1, noNaN: true }));

describe('CandidatePool', () => {
  it('answers take, above and all as the fully scored, fused pool would: same hits, parts, fields and order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }).chain((spaces) =>
          fc.record({
            spaces: fc.constant(spaces),
            vector: fc.array(fc.array(score, { minLength: spaces, maxLength: spaces }), {
              minLength: 20,
              maxLength: 80,
            }),
            keywordShare: fc.array(fc.array(score, { minLength: spaces, maxLength: spaces }), {
              minLength: 80,
              maxLength: 80,
            }),
            floors: fc.array(fc.option(fc.double({ min: 0, max: 1, noNaN: true })), {
              minLength: spaces,
              maxLength: spaces,
            }),
            k: fc.integer({ min: 1, max: 30 }),
            take: fc.integer({ min: 1, max: 15 }),
            // The bar: just under one of the fused scores, or anywhere.
            barAt: fc.double({ min: 0, max: 1, noNaN: true }),
            barBelow: fc.constantFrom(0, 1e-12, 0.01),
            minScore: fc.option(fc.double({ min: 0, max: 0.6, noNaN: true }), { nil: undefined }),
          }),
        ),
        async ({ spaces, vector, keywordShare, floors, k, take, barAt, barBelow, minScore }) => {
          const fields = Array.from({ length: spaces }, (_, s) => `field${s}`);
          const keyword: Scores = vector.map((_, d) => keywordShare[d].map((s) => (s === null ? null : Math.abs(s))));
          const vectorLists = fields.map((_, s) => topList(vector, s, k));
          const keywordFloors = floors.map((floor) => floor ?? undefined);
          const keywordLists = fields.map((_, s) => topList(keyword, s, k, keywordFloors[s]));
          const ids = [...new Set([...vectorLists.flat(), ...keywordLists.flat()].map((hit) => hit.id))];
          const scored: string[] = [];
          const scoresOf = (table: Scores) => async (space: number, missing: string[]) => {
            scored.push(...missing);
            return missing.map((id) => {
              const value = table[Number(id.slice(1))][space];
              return value === null ? null : { score: value };
            });
          };
          const { pool, vectorBest, keywordBest } = hybridPool({
            fields,
            ids,
            k,
            vectorLists,
            keywordLists,
            keywordFloors,
            scoreVectors: scoresOf(vector),
            scoreKeywords: scoresOf(keyword),
            fuse: fuseParts(minScore),
          });
          const expected = fuseParts(minScore)({
            vector: bestList(vector, fields, ids),
            keyword: bestList(keyword, fields, ids),
          });
          // Mostly among the hits `take` leaves, where `above` must complete candidates to answer.
          const at = Math.min(expected.length - 1, take + Math.floor(barAt * (expected.length - take)));
          const bar = at >= 0 ? expected[at].score - barBelow : barAt;
          const first = await pool.take(take);
          expect(first).toEqual(expected.slice(0, take));
          const above = await pool.above(bar);
          expect(above).toEqual(expected.slice(take).filter((hit) => hit.score > bar));
          expect(await pool.all()).toEqual(expected.slice(take).filter((hit) => !(hit.score > bar)));
          // What a page shows of each hit is its exact best part.
          for (const hit of expected) {
            expect(vectorBest.get(hit.id)?.score ?? null).toBe(hit.parts.vector);
            expect(keywordBest.get(hit.id)?.score ?? null).toBe(hit.parts.keyword);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('scores only the candidates whose bounds can reach the page', async () => {
    // One space each side; 100 documents, found by vector (d0..d49) or by keyword (d50..d99), never both, with scores
    // falling as relevance does in a real list: few score high, most near the list's last.
    const falling = (rank: number) => 0.9 * 0.95 ** rank;
    const vector = Array.from({ length: 100 }, (_, d) => [d < 50 ? falling(d) : 0.01]);
    const keyword = Array.from({ length: 100 }, (_, d) => [d >= 50 ? falling(d - 50) : 0.01]);
    const scored: string[] = [];
    const scoresOf = (table: Scores) => async (space: number, ids: string[]) => {
      scored.push(...ids);
      return ids.map((id) => ({ score: table[Number(id.slice(1))][space]! }));
    };
    const vectorLists = [topList(vector, 0, 50)];
    const keywordLists = [topList(keyword, 0, 50)];
    const ids = [...vectorLists[0], ...keywordLists[0]].map((hit) => hit.id);
    const { pool } = hybridPool({
      fields: ['goal'],
      ids,
      k: 50,
      vectorLists,
      keywordLists,
      scoreVectors: scoresOf(vector),
      scoreKeywords: scoresOf(keyword),
      fuse: fuseParts(),
    });
    const page = await pool.take(10);
    const all = fuseParts()({
      vector: bestList(vector, ['goal'], ids),
      keyword: bestList(keyword, ['goal'], ids),
    });
    expect(page).toEqual(all.slice(0, 10));
    // Of 100 candidates, those whose bound reaches the page's last score, in batches of 16: not half of them.
    expect(scored.length).toBeLessThan(50);
    expect(scored.length).toBeGreaterThanOrEqual(10);
  });

  it('hands out a scored pool in fused order, each hit once', async () => {
    const hits: FusedHit[] = [0.2, 0.9, 0.5, 0.9].map((score, i) => ({
      id: `h${i}`,
      score,
      parts: { vector: score },
      field: null,
    }));
    const pool = CandidatePool.scored(hits);
    expect((await pool.take(2)).map((hit) => hit.id)).toEqual(['h1', 'h3']);
    expect((await pool.above(0.3)).map((hit) => hit.id)).toEqual(['h2']);
    expect((await pool.all()).map((hit) => hit.id)).toEqual(['h0']);
    expect(await pool.all()).toEqual([]);
  });
});
