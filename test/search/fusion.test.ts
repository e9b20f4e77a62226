import { fuse, type FusionMethod } from '../../src/search/fusion';

describe('fuse (weighted sum of normalised parts)', () => {
  it('scores each hit Σ w·s / Σ w over the lists, keeping every part', () => {
    const fused = fuse([
      {
        name: 'vector',
        weight: 0.7,
        hits: [
          { id: 'a', score: 0.9, field: 'goal' },
          { id: 'b', score: 0.5, field: 'goal' },
        ],
      },
      {
        name: 'keyword',
        weight: 0.3,
        hits: [
          { id: 'b', score: 1, field: 'summary' },
          { id: 'c', score: 0.4, field: 'summary' },
        ],
      },
    ]);
    const [b, a, c] = fused;
    expect([b.id, a.id, c.id]).toEqual(['b', 'a', 'c']);
    expect(b.score).toBeCloseTo(0.7 * 0.5 + 0.3 * 1, 12); // 0.65
    expect(a.score).toBeCloseTo(0.7 * 0.9, 12); // 0.63: absent from the keyword list, which counts 0
    expect(c.score).toBeCloseTo(0.3 * 0.4, 12);
    expect(a.parts).toEqual({ vector: 0.9, keyword: null });
    expect(b.parts).toEqual({ vector: 0.5, keyword: 1 });
    expect(c.parts).toEqual({ vector: null, keyword: 0.4 });
  });

  it('orders by fused score, then by id', () => {
    const fused = fuse([
      {
        name: 'vector',
        weight: 0.7,
        hits: [
          { id: 'a', score: 0.9 },
          { id: 'b', score: 0.5 },
        ],
      },
      {
        name: 'keyword',
        weight: 0.3,
        hits: [
          { id: 'b', score: 1 },
          { id: 'z', score: 0.3 },
          { id: 'y', score: 0.3 },
        ],
      },
    ]);
    // b = 0.35 + 0.3 = 0.65 beats a = 0.63; y and z tie at 0.09 and sort by id.
    expect(fused.map((hit) => [hit.id, Number(hit.score.toFixed(4))])).toEqual([
      ['b', 0.65],
      ['a', 0.63],
      ['y', 0.09],
      ['z', 0.09],
    ]);
  });

  it('divides by the sum of weights, so one list alone gives its own scores and weights need not sum to 1', () => {
    expect(fuse([{ name: 'vector', weight: 0.7, hits: [{ id: 'a', score: 0.8 }] }])[0].score).toBeCloseTo(0.8, 12);
    const scaled = fuse([
      { name: 'vector', weight: 7, hits: [{ id: 'a', score: 0.8 }] },
      { name: 'keyword', weight: 3, hits: [{ id: 'a', score: 0.2 }] },
    ]);
    expect(scaled[0].score).toBeCloseTo(0.7 * 0.8 + 0.3 * 0.2, 12);
  });

  it('clamps part scores to [0, 1] in the sum (a negative cosine counts 0) but reports them unchanged', () => {
    const [hit] = fuse([
      { name: 'vector', weight: 1, hits: [{ id: 'a', score: -0.4 }] },
      { name: 'keyword', weight: 1, hits: [{ id: 'a', score: 1.5 }] },
    ]);
    expect(hit.score).toBeCloseTo(0.5, 12);
    expect(hit.parts).toEqual({ vector: -0.4, keyword: 1.5 });
  });

  it('names the field of the part with the largest weighted contribution', () => {
    const fused = fuse([
      {
        name: 'vector',
        weight: 0.7,
        hits: [
          { id: 'a', score: 0.2, field: 'goal' },
          { id: 'b', score: 0.9, field: 'goal' },
        ],
      },
      {
        name: 'keyword',
        weight: 0.3,
        hits: [
          { id: 'a', score: 1, field: 'summary' },
          { id: 'b', score: 1, field: 'summary' },
        ],
      },
    ]);
    const byId = Object.fromEntries(fused.map((hit) => [hit.id, hit.field]));
    expect(byId).toEqual({ a: 'summary', b: 'goal' }); // a: 0.14 vs 0.3; b: 0.63 vs 0.3
  });

  it('keeps the best score of an id listed twice in one list (e.g. two spaces merged)', () => {
    const [hit] = fuse([
      {
        name: 'keyword',
        weight: 1,
        hits: [
          { id: 'a', score: 0.3, field: 'query' },
          { id: 'a', score: 0.6, field: 'goal' },
          { id: 'a', score: 0.5, field: 'query' },
        ],
      },
    ]);
    expect(hit).toEqual({ id: 'a', score: 0.6, parts: { keyword: 0.6 }, field: 'goal' });
  });

  it('applies minScore, then limit', () => {
    const lists = [
      { name: 'vector', weight: 1, hits: [0.9, 0.8, 0.7, 0.6].map((score, i) => ({ id: `d${i}`, score })) },
    ];
    expect(fuse(lists, { minScore: 0.7 }).map((hit) => hit.id)).toEqual(['d0', 'd1', 'd2']);
    expect(fuse(lists, { minScore: 0.7, limit: 2 }).map((hit) => hit.id)).toEqual(['d0', 'd1']);
  });

  it('rejects a repeated list name and a negative weight', () => {
    expect(() =>
      fuse([
        { name: 'v', weight: 1, hits: [] },
        { name: 'v', weight: 1, hits: [] },
      ]),
    ).toThrow(/twice/);
    expect(() => fuse([{ name: 'v', weight: -1, hits: [] }])).toThrow(/≥ 0/);
  });

  describe('methods (the order only; score stays the weighted sum)', () => {
    // Vector scores bunched near 0.8, keyword scores spread: rescaling decides which part dominates.
    const lists = [
      {
        name: 'vector',
        weight: 0.5,
        hits: [
          { id: 'a', score: 0.82, field: 'goal' },
          { id: 'b', score: 0.8, field: 'goal' },
          { id: 'c', score: 0.78, field: 'goal' },
        ],
      },
      {
        name: 'keyword',
        weight: 0.5,
        hits: [
          { id: 'c', score: 0.5, field: 'summary' },
          { id: 'b', score: 0.4, field: 'summary' },
          { id: 'a', score: 0.1, field: 'summary' },
        ],
      },
    ];
    const order = (method: FusionMethod) => fuse(lists, { method }).map((hit) => hit.id);

    it('weighted orders by the sum: c 0.64, b 0.6, a 0.46', () => {
      expect(order({ kind: 'weighted' })).toEqual(['c', 'b', 'a']);
    });

    it('min-max rescales each list to [0, 1] over its hits: b (0.5 + 0.75) ahead of a (1 + 0) and c (0 + 1)', () => {
      expect(order({ kind: 'min-max' })).toEqual(['b', 'a', 'c']); // a and c tie at 0.5: by id
      const [b] = fuse(lists, { method: { kind: 'min-max' } });
      expect(b).toEqual({ id: 'b', score: (0.8 + 0.4) / 2, parts: { vector: 0.8, keyword: 0.4 }, field: 'summary' });
    });

    it('z-score standardises each list over its hits', () => {
      // vector z: a 1.22, b 0, c -1.22; keyword z: c 0.98, b 0.39, a -1.37; sums: b 0.39, a -0.15, c -0.24
      expect(order({ kind: 'z-score' })).toEqual(['b', 'a', 'c']);
    });

    it('rrf adds w / (k + rank) per list, ignoring score gaps', () => {
      // k = 1: a 1/2 + 1/4, b 1/3 + 1/3, c 1/4 + 1/2: a and c tie and sort by id, b last.
      expect(order({ kind: 'rrf', k: 1 })).toEqual(['a', 'c', 'b']);
    });

    it('applies minScore to the weighted sum whatever the method', () => {
      for (const method of [{ kind: 'min-max' }, { kind: 'z-score' }, { kind: 'rrf', k: 60 }] as FusionMethod[])
        expect(
          fuse(lists, { method, minScore: 0.6 })
            .map((hit) => hit.id)
            .sort(),
        ).toEqual(['b', 'c']);
    });
  });
});
