import { KeywordIndex } from '../../src/search/bm25';
import { synonymsOf } from '../../src/search/synonyms';
import { SYNONYM_WEIGHT, keywordTerms, queryTerms } from '../../src/search/tokenize';

describe('keyword analysis', () => {
  it('stems words to their Porter2 stems, so other word forms match', () => {
    expect(keywordTerms('Deploying the deployments; deployed')).toEqual(['deploy', 'deploy', 'deploy']);
    expect(keywordTerms('Investigating flaky tests')).toEqual(keywordTerms('investigate flakiness test'));
  });

  it('keeps tokens with digits as they are and drops stop words', () => {
    expect(keywordTerms('the v2 release of a 10ms cache')).toEqual(['v2', 'releas', '10ms', 'cach']);
  });

  it('finds WordNet synonyms of a word and of its inflected forms', () => {
    expect(synonymsOf('bill')).toContain('invoice');
    expect(synonymsOf('competitors')).toContain('rival');
    expect(synonymsOf('zzzz')).toEqual([]);
    expect(synonymsOf('v2')).toEqual([]);
  });

  it("weights a synonym below the query's own words and never repeats a term", () => {
    const terms = queryTerms('parse the bill');
    expect(terms.slice(0, 2)).toEqual([
      { term: 'pars', weight: 1 },
      { term: 'bill', weight: 1 },
    ]);
    expect(terms).toContainEqual({ term: 'invoic', weight: SYNONYM_WEIGHT });
    expect(SYNONYM_WEIGHT).toBeLessThan(1);
    expect(new Set(terms.map((t) => t.term)).size).toBe(terms.length);
  });
});

describe('KeywordIndex with the analysis', () => {
  const index = new KeywordIndex(['text']);
  index.upsert('invoice', { text: 'Write unit tests for the invoice parsing module' });
  index.upsert('bill', { text: 'Write unit tests for the bill parsing module' });
  index.upsert('deploy', { text: 'Roll back the deployment of the cache' });

  it('matches another word form of an indexed word', () => {
    expect(index.top('deploying caches', 3).map((hit) => hit.id)).toEqual(['deploy']);
  });

  it("finds a document through a synonym, below one with the query's own word", () => {
    const hits = index.top('tests for the bill parser', 3);
    expect(hits.map((hit) => hit.id)).toEqual(['bill', 'invoice']);
    expect(hits[1].score).toBeLessThan(hits[0].score);
    // The synonym's share: its idf × SYNONYM_WEIGHT, out of the query's own terms' idf mass.
    expect(hits[1].score).toBeLessThan(1);
  });
});
