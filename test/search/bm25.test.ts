import { KeywordIndex } from '../../src/search/bm25';

/** d1..d3: lengths 3, 2, 4 tokens, so avgdl = 3 and the length norms are 1.2, 0.9 and 1.5 (k1 = 1.2, b = 0.75). */
function tinyCorpus(): KeywordIndex {
  const index = new KeywordIndex(['text']);
  index.upsert('d1', { text: 'Apple banana, apple!' });
  index.upsert('d2', { text: 'banana cherry' });
  index.upsert('d3', { text: 'cherry date elderberry fig' });
  return index;
}

const idf = (documents: number, df: number) => Math.log(1 + (documents - df + 0.5) / (df + 0.5));

describe('KeywordIndex (BM25, k1 = 1.2, b = 0.75)', () => {
  it('scores a one-term query by hand: tf 2 in a document of average length', () => {
    const [hit, ...rest] = tinyCorpus().score('apple').top(10);
    expect(rest).toEqual([]);
    expect(hit.id).toBe('d1');
    // idf = ln(1 + 2.5/1.5) = 0.980829; tf part = 2·2.2 / (2 + 1.2) = 1.375
    expect(hit.bm25).toBeCloseTo(0.980829 * 1.375, 5);
    expect(hit.score).toBe(1); // 1.375 ≥ one occurrence at average length: clipped to 1
  });

  it('ranks a two-term query as computed by hand and normalises by Σ idf', () => {
    const hits = tinyCorpus().score('Banana CHERRY').top(10);
    const both = idf(3, 2); // ln 1.6 = 0.470004 for banana and for cherry
    expect(hits.map((hit) => hit.id)).toEqual(['d2', 'd1', 'd3']);
    expect(hits[0].bm25).toBeCloseTo(2 * both * (2.2 / 1.9), 6); // d2: both terms, short document (norm 0.9)
    expect(hits[1].bm25).toBeCloseTo(both * 1, 6); // d1: banana once, average length
    expect(hits[2].bm25).toBeCloseTo(both * (2.2 / 2.5), 6); // d3: cherry once, long document (norm 1.5)
    expect(hits.map((hit) => Number(hit.score.toFixed(6)))).toEqual([1, 0.5, 0.44]);
  });

  it('counts query terms no document has in the normaliser (half the query found scores about half)', () => {
    const [hit] = tinyCorpus().score('apple zzzunknown').top(1);
    expect(hit.bm25).toBeCloseTo(0.980829 * 1.375, 5);
    expect(hit.score).toBeCloseTo((0.980829 * 1.375) / (0.980829 + Math.log(8)), 5);
  });

  it('counts a repeated query term once and returns nothing for a query without terms or matches', () => {
    const index = tinyCorpus();
    expect(index.score('apple apple apple').top(1)[0].bm25).toBeCloseTo(index.score('apple').top(1)[0].bm25, 12);
    expect(index.score(' ,.; ').top(5)).toEqual([]);
    expect(index.score('kiwi').top(5)).toEqual([]);
  });

  it('keeps N, df and avgdl current on remove and on re-upsert', () => {
    const index = tinyCorpus();
    expect(index.remove('d1')).toBe(true);
    expect(index.remove('d1')).toBe(false);
    expect(index.score('apple').top(5)).toEqual([]);
    const hits = index.score('banana cherry').top(5);
    // N = 2, avgdl = 3: banana idf ln 2, cherry idf ln 1.2
    expect(hits.map((hit) => hit.id)).toEqual(['d2', 'd3']);
    expect(hits[0].bm25).toBeCloseTo((Math.log(2) + Math.log(1.2)) * (2.2 / 1.9), 6);
    expect(hits[1].bm25).toBeCloseTo(Math.log(1.2) * (2.2 / 2.5), 6);

    index.upsert('d2', { text: 'apple' }); // replaces d2's text
    expect(index.score('banana').top(5)).toEqual([]);
    expect(index.score('apple').top(5).map((hit) => hit.id)).toEqual(['d2']);
    expect(index.size).toBe(2);
    index.upsert('d3', { text: '' }); // no token: removed
    expect(index.has('d3')).toBe(false);
  });

  it('names the field that contributed most, splitting each term by its tf per field', () => {
    const index = new KeywordIndex(['title', 'body']);
    index.upsert('x', { title: 'flight booking', body: 'hotel hotel hotel flight' });
    index.upsert('y', { title: 'unrelated', body: 'words only' });
    const field = (query: string) => index.fields[index.score(query).top(1)[0].field];
    expect(field('hotel')).toBe('body');
    expect(field('booking')).toBe('title');
    expect(field('flight booking')).toBe('title'); // flight splits 1:1, booking is all title
    expect(field('flight hotel')).toBe('body');
  });

  it('filters before the limit: `allowed` skips documents before taking the best n', () => {
    const hits = tinyCorpus().score('banana cherry').top(1, (id) => id !== 'd2');
    expect(hits.map((hit) => hit.id)).toEqual(['d1']);
  });

  it('scores exactly as a fresh index after removals compacted the postings', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const text = (i: number) => `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5 + 1) % 8]} doc${i}`;
    const churned = new KeywordIndex(['text']);
    const fresh = new KeywordIndex(['text']);
    for (let i = 0; i < 3000; i++) churned.upsert(`d${i}`, { text: text(i) });
    for (let i = 0; i < 3000; i++) if (i % 5 !== 0) churned.remove(`d${i}`); // 2400 removed: compaction runs
    for (let i = 0; i < 3000; i += 5) fresh.upsert(`d${i}`, { text: text(i) });
    expect(churned.size).toBe(600);
    for (const query of ['alpha beta', 'theta', 'gamma delta epsilon doc15']) {
      const a = churned.score(query).top(20);
      const b = fresh.score(query).top(20);
      expect(a.map((hit) => hit.id)).toEqual(b.map((hit) => hit.id));
      a.forEach((hit, i) => expect(hit.bm25).toBeCloseTo(b[i].bm25, 9));
    }
  });
});
