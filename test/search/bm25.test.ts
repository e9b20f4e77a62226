import { DocumentIds } from '../../src/search/document-ids';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KeywordIndex } from '../../src/search/bm25';
import { SnapshotReader, SnapshotWriter, readChecked } from '../../src/search/snapshot';
import { keywordTerms } from '../../src/search/tokenize';
import { seededRandom } from '../support/vectors';

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
    const [hit, ...rest] = tinyCorpus().top('apple', 10);
    expect(rest).toEqual([]);
    expect(hit.id).toBe('d1');
    // idf = ln(1 + 2.5/1.5) = 0.980829; tf part = 2·2.2 / (2 + 1.2) = 1.375
    expect(hit.bm25).toBeCloseTo(0.980829 * 1.375, 5);
    expect(hit.score).toBe(1); // 1.375 ≥ one occurrence at average length: clipped to 1
  });

  it('ranks a two-term query as computed by hand and normalises by Σ idf', () => {
    const hits = tinyCorpus().top('Banana CHERRY', 10);
    const both = idf(3, 2); // ln 1.6 = 0.470004 for banana and for cherry
    expect(hits.map((hit) => hit.id)).toEqual(['d2', 'd1', 'd3']);
    expect(hits[0].bm25).toBeCloseTo(2 * both * (2.2 / 1.9), 6); // d2: both terms, short document (norm 0.9)
    expect(hits[1].bm25).toBeCloseTo(both * 1, 6); // d1: banana once, average length
    expect(hits[2].bm25).toBeCloseTo(both * (2.2 / 2.5), 6); // d3: cherry once, long document (norm 1.5)
    expect(hits.map((hit) => Number(hit.score.toFixed(6)))).toEqual([1, 0.5, 0.44]);
  });

  it('counts query terms no document has in the normaliser (half the query found scores about half)', () => {
    const [hit] = tinyCorpus().top('apple zzzunknown', 1);
    expect(hit.bm25).toBeCloseTo(0.980829 * 1.375, 5);
    expect(hit.score).toBeCloseTo((0.980829 * 1.375) / (0.980829 + Math.log(8)), 5);
  });

  it('counts a repeated query term once and returns nothing for a query without terms or matches', () => {
    const index = tinyCorpus();
    expect(index.top('apple apple apple', 1)[0].bm25).toBeCloseTo(index.top('apple', 1)[0].bm25, 12);
    expect(index.top(' ,.; ', 5)).toEqual([]);
    expect(index.top('kiwi', 5)).toEqual([]);
  });

  it("leaves out stop words: they neither match nor count in a text's length", () => {
    const index = new KeywordIndex(['text']);
    index.upsert('plain', { text: 'apple pie' });
    index.upsert('wordy', { text: 'the apple is in the pie of the day' });
    index.upsert('other', { text: 'pear tart' });
    expect(index.top('the of in', 5)).toEqual([]);
    const [plain, wordy] = ['plain', 'wordy'].map((id) => index.top('the apple', 3).find((hit) => hit.id === id)!);
    // 'wordy' is 'apple pie day' without its stop words: one term longer than 'plain', so it scores a little lower.
    expect(plain.bm25).toBeGreaterThan(wordy.bm25);
    expect(index.top('apple pie day', 1)[0].id).toBe('wordy');
  });

  it('keeps N, df and avgdl current on remove and on re-upsert', () => {
    const index = tinyCorpus();
    expect(index.remove('d1')).toBe(true);
    expect(index.remove('d1')).toBe(false);
    expect(index.top('apple', 5)).toEqual([]);
    const hits = index.top('banana cherry', 5);
    // N = 2, avgdl = 3: banana idf ln 2, cherry idf ln 1.2
    expect(hits.map((hit) => hit.id)).toEqual(['d2', 'd3']);
    expect(hits[0].bm25).toBeCloseTo((Math.log(2) + Math.log(1.2)) * (2.2 / 1.9), 6);
    expect(hits[1].bm25).toBeCloseTo(Math.log(1.2) * (2.2 / 2.5), 6);

    index.upsert('d2', { text: 'apple' }); // replaces d2's text
    expect(index.top('banana', 5)).toEqual([]);
    expect(index.top('apple', 5).map((hit) => hit.id)).toEqual(['d2']);
    expect(index.size).toBe(2);
    index.upsert('d3', { text: '' }); // no token: removed
    expect(index.has('d3')).toBe(false);
  });

  it('names the field that contributed most, splitting each term by its tf per field', () => {
    const index = new KeywordIndex(['title', 'body']);
    index.upsert('x', { title: 'flight booking', body: 'hotel hotel hotel flight' });
    index.upsert('y', { title: 'unrelated', body: 'words only' });
    const field = (query: string) => index.fields[index.top(query, 1)[0].field];
    expect(field('hotel')).toBe('body');
    expect(field('booking')).toBe('title');
    expect(field('flight booking')).toBe('title'); // flight splits 1:1, booking is all title
    expect(field('flight hotel')).toBe('body');
  });

  it('filters before the limit: `allowed` skips documents before taking the best n', () => {
    const hits = tinyCorpus().top('banana cherry', 1, { allowed: (id) => id !== 'd2' });
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
      const a = churned.top(query, 20);
      const b = fresh.top(query, 20);
      expect(a.map((hit) => hit.id)).toEqual(b.map((hit) => hit.id));
      a.forEach((hit, i) => expect(hit.bm25).toBeCloseTo(b[i].bm25, 9));
    }
  });
});

describe('KeywordIndex top-k pruning and snapshots', () => {
  /** A corpus of two-field documents whose words follow a Zipf law (a few very common words, many rare ones). */
  function zipfCorpus(count: number, seed: number) {
    const random = seededRandom(seed);
    const vocabulary = 400;
    const weights = Array.from({ length: vocabulary }, (_, rank) => 1 / (rank + 1));
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    const word = () => {
      let target = random() * total;
      for (let rank = 0; rank < vocabulary; rank++) if ((target -= weights[rank]) <= 0) return `w${rank}`;
      return `w${vocabulary - 1}`;
    };
    const words = (n: number) => Array.from({ length: n }, word).join(' ');
    const documents = Array.from({ length: count }, (_, i) => ({
      id: `d${i}`,
      title: words(1 + Math.floor(random() * 4)),
      body: words(4 + Math.floor(random() * 12)),
    }));
    return { documents, words };
  }

  function indexOf(documents: Array<{ id: string; title: string; body: string }>): KeywordIndex {
    const index = new KeywordIndex(['title', 'body']);
    for (const { id, title, body } of documents) index.upsert(id, { title, body });
    return index;
  }

  /** BM25 of every document computed from the raw texts, independently of the index. */
  function bruteForce(
    documents: Array<{ id: string; title: string; body: string }>,
    query: string,
  ): Map<string, number> {
    const tokens = documents.map((document) => [...keywordTerms(document.title), ...keywordTerms(document.body)]);
    const avgdl = tokens.reduce((sum, list) => sum + list.length, 0) / documents.length;
    const scores = new Map<string, number>();
    for (const term of new Set(keywordTerms(query))) {
      const df = tokens.filter((list) => list.includes(term)).length;
      const termIdf = idf(documents.length, df);
      tokens.forEach((list, d) => {
        const tf = list.filter((token) => token === term).length;
        if (!tf) return;
        const part = (termIdf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * list.length) / avgdl));
        scores.set(documents[d].id, (scores.get(documents[d].id) ?? 0) + part);
      });
    }
    return scores;
  }

  it('returns exactly the exhaustive top k (ids, scores, fields, order) for rare, common and mixed queries', () => {
    const { documents, words } = zipfCorpus(3000, 5);
    const index = indexOf(documents);
    // Churn: updates and removals leave tombstones and move documents to new rows.
    for (let i = 0; i < 3000; i += 7) index.upsert(`d${i}`, { title: words(2), body: words(8) });
    for (let i = 3; i < 3000; i += 11) index.remove(`d${i}`);
    const queries = [
      'w0 w1 w2',
      'w350 w0',
      'w399',
      'w1 w5 w120 w260 w3',
      words(3),
      words(6),
      words(10),
      'w0 w0 w9 nothing',
    ];
    let compared = 0;
    for (const query of queries) {
      for (const n of [1, 3, 10, 50, 400]) {
        const pruned = index.top(query, n);
        expect(pruned).toEqual(index.top(query, n, { prune: false }));
        const allowed = (id: string) => Number(id.slice(1)) % 3 !== 0;
        const filtered = index.top(query, n, { allowed });
        expect(filtered).toEqual(index.top(query, n, { allowed, prune: false }));
        expect(filtered.every((hit) => allowed(hit.id))).toBe(true);
        compared += pruned.length;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('with a floor, returns exactly the exhaustive top k of the documents scoring at least the floor', () => {
    const { documents, words } = zipfCorpus(3000, 8);
    const index = indexOf(documents);
    let compared = 0;
    let cut = 0;
    for (const query of ['w0 w1 w2', 'w1 w5 w120 w260 w3', words(4), words(8), 'w350 w0']) {
      const all = index.top(query, 3000, { prune: false });
      for (const n of [1, 10, 100]) {
        // Floors at, between and beyond the scores found, including each score exactly (ties with the floor count).
        for (const floor of [0, ...[0.1, 0.3, 0.5, 0.7].map((share) => all[Math.floor(share * all.length)].score), 1]) {
          const expected = all.filter((hit) => hit.score >= floor).slice(0, n);
          expect(index.top(query, n, { floor })).toEqual(expected);
          expect(index.top(query, n, { floor, prune: false })).toEqual(expected);
          compared += expected.length;
          if (expected.length < Math.min(n, all.length)) cut++;
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
    expect(cut).toBeGreaterThan(5);
  });

  it('returns exactly the exhaustive top k on templated texts (mostly ties), queried while the index grows', () => {
    // Most documents of a template tie; a few score higher: a shorter text, or its first word in both fields (tf 2 from
    // two postings, which may straddle two blocks). Queries between the writes see blocks that later writes extend.
    const random = seededRandom(21);
    const index = new KeywordIndex(['title', 'body']);
    const templates = ['refund order', 'book flight paris', 'restock chairs oslo warehouse'];
    const queries = ['refund', 'order refund', 'flight paris tokyo', 'chairs warehouse', 'refund paris warehouse'];
    let next = 0;
    let compared = 0;
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 150; i++) {
        const template = templates[Math.floor(random() * templates.length)];
        const word = template.split(' ')[0];
        const roll = random();
        const texts =
          roll < 0.03
            ? { title: word, body: template }
            : roll < 0.05
              ? { title: '', body: word }
              : { title: 'task', body: template };
        index.upsert(`d${next++}`, texts);
      }
      if (round % 4 === 3) for (let i = 0; i < 60; i++) index.remove(`d${Math.floor(random() * next)}`);
      for (const query of queries) {
        for (const n of [1, 5, 20, 100]) {
          const pruned = index.top(query, n);
          expect(pruned).toEqual(index.top(query, n, { prune: false }));
          compared += pruned.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(5000);
  });

  it('scores as BM25 computed from the raw texts, and scoreOf agrees with top bit for bit', () => {
    const { documents, words } = zipfCorpus(1500, 8);
    const index = indexOf(documents);
    for (const query of ['w0 w3 w77', words(4), words(7)]) {
      const expected = [...bruteForce(documents, query).values()].sort((a, b) => b - a).slice(0, 20);
      const top = index.top(query, 20);
      expect(top.map((hit) => hit.bm25)).toHaveLength(expected.length);
      top.forEach((hit, i) => expect(hit.bm25).toBeCloseTo(expected[i], 9));
      expect(
        index.scoreOf(
          query,
          top.map((hit) => hit.id),
        ),
      ).toEqual(top);
    }
    expect(index.scoreOf('w0', ['missing'])).toEqual([null]);
  });

  it('restores from a snapshot exactly: same results, and the same after further writes', async () => {
    const { documents, words } = zipfCorpus(2000, 13);
    const original = indexOf(documents);
    for (let i = 0; i < 2000; i += 9) original.remove(`d${i}`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bm25-snapshot-'));
    try {
      const out = new SnapshotWriter();
      original.save(out);
      const check = out.write(path.join(dir, 'keywords.data'));
      const bytes = await readChecked(path.join(dir, 'keywords.data'), check);
      const restored = KeywordIndex.restore(
        new SnapshotReader(bytes, out.sections),
        ['title', 'body'],
        new DocumentIds(),
      );
      const queries = [words(3), words(5), 'w0 w1', 'w2 w200'];
      for (const query of queries) expect(restored.top(query, 30)).toEqual(original.top(query, 30));
      for (const index of [original, restored]) {
        for (let i = 0; i < 600; i++)
          index.upsert(`d${(i * 13) % 2100}`, { title: `w${i % 50}`, body: `w${i % 7} w${i % 300}` });
        for (let i = 1; i < 2000; i += 4) index.remove(`d${i}`); // enough to compact both
      }
      expect(restored.size).toBe(original.size);
      for (const query of queries) expect(restored.top(query, 30)).toEqual(original.top(query, 30));
      expect(() => KeywordIndex.restore(new SnapshotReader(bytes, out.sections), ['title'], new DocumentIds())).toThrow(
        /other fields/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
