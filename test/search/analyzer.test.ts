import { KeywordIndex, MAX_SCORED_TERMS } from '../../src/search/bm25';
import { synonymsOf } from '../../src/search/synonyms';
import {
  MAX_QUERY_WORDS,
  MAX_SYNONYM_WORDS,
  MAX_TEXT_TERMS,
  MAX_TOKEN_LENGTH,
  SYNONYM_WEIGHT,
  keywordTerms,
  queryTerms,
  stemmerCalls,
  tokenize,
} from '../../src/search/tokenize';
import { goalPattern } from '../../src/modules/plans/plan.goal-pattern';
import { redact } from '../../src/redact';

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

describe('long tokens', () => {
  const long = (length: number, alphabet = 'abcdefghij') =>
    Array.from({ length }, (_, i) => alphabet[(i * 7 + (i >> 3)) % alphabet.length]).join('');

  it('splits like /[\\p{L}\\p{N}]+/gu, surrogate pairs, lone surrogates and combining marks included', () => {
    const texts = ['Déjà vu, 𝐀𝐁 x\uD800y ż\u0301 漢字 ٣٤ İstanbul', 'a-b_c.d', '', '   ', '😀 emoji 😀'];
    for (const text of texts) expect(tokenize(text)).toEqual(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  });

  it('cuts a token to MAX_TOKEN_LENGTH, never inside a surrogate pair', () => {
    expect(tokenize(`a ${'x'.repeat(1_000_000)} b`)).toEqual(['a', 'x'.repeat(MAX_TOKEN_LENGTH), 'b']);
    const astral = tokenize('𝐀'.repeat(100))[0];
    expect(astral.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    expect(astral).toBe('𝐀'.repeat(astral.length / 2));
    expect(tokenize('b' + '𝐀'.repeat(100))[0]).toBe('b' + '𝐀'.repeat((MAX_TOKEN_LENGTH - 2) / 2));
  });

  it('tokenizes a 12 MB multi-byte token (the pattern overflowed its stack on it)', () => {
    const tokens = tokenize('漢字語ж'.repeat(3_000_000));
    expect(tokens).toEqual(['漢字語ж'.repeat(MAX_TOKEN_LENGTH / 4)]);
  });

  it('never hands the stemmer or WordNet a token longer than MAX_TOKEN_LENGTH', () => {
    stemmerCalls.longest = 0;
    const words = [long(5_000), long(100_000, 'qwertyuiop'), `${long(63)}ing`, 'reconfigurations'];
    keywordTerms(words.join(' '));
    queryTerms(words.join(' '));
    expect(stemmerCalls.longest).toBeLessThan(MAX_TOKEN_LENGTH);
    expect(stemmerCalls.longest).toBeGreaterThan(0);
  });

  it('keeps a long token as its cut prefix, unstemmed, with no synonyms', () => {
    const token = `${long(200)}ing`;
    expect(keywordTerms(token)).toEqual([token.slice(0, MAX_TOKEN_LENGTH)]);
    expect(queryTerms(token)).toEqual([{ term: token.slice(0, MAX_TOKEN_LENGTH), weight: 1 }]);
    expect(synonymsOf('bill'.repeat(1000))).toEqual([]);
  });

  it('bounds a query of many words: synonyms for its first MAX_SYNONYM_WORDS distinct words only', () => {
    const words = Array.from({ length: 5_000 }, (_, i) => ['bill', 'car', 'fix', 'plan'][i % 4] + 'x'.repeat(i % 50));
    const terms = queryTerms(['bill', ...words].join(' '));
    const synonyms = terms.filter((term) => term.weight < 1);
    const own = terms.filter((term) => term.weight === 1);
    expect(own.length).toBe(new Set(keywordTerms(['bill', ...words].join(' '))).size);
    expect(synonyms).toContainEqual({ term: 'invoic', weight: SYNONYM_WEIGHT });
    expect(MAX_SYNONYM_WORDS).toBe(32);
  });

  it('finds a document by its long token, by the whole token or a prefix of MAX_TOKEN_LENGTH or more', () => {
    const index = new KeywordIndex(['text']);
    const payload = long(1_000_000, 'AbCdEfGh0123456789');
    index.upsert('payload', { text: `image ${payload} attached` });
    index.upsert('other', { text: 'image attached to the report' });
    expect(index.top(payload, 5)[0].id).toBe('payload');
    expect(index.top(payload.slice(0, 80), 5)[0].id).toBe('payload');
    expect(index.top(payload.slice(0, MAX_TOKEN_LENGTH), 5)[0].id).toBe('payload');
  });
});

describe('goal patterns and redaction of long texts', () => {
  it('replaces quoted text in one pass, unclosed quotes too', () => {
    expect(goalPattern('Send “the report” to Ann')).toBe('send_*_to_*');
    expect(goalPattern(`Send ${'“'.repeat(200_000)} now`)).toBe('send_now');
    expect(goalPattern(`Send ${'‘'.repeat(200_000)}`)).toBe('send');
  });

  it('redacts URI credentials with a bounded scheme', () => {
    expect(redact('mongodb+srv://user:secret@host/db')).toBe('mongodb+srv://user:[redacted]@host/db');
    const text = 'a.'.repeat(50_000);
    expect(redact(text)).toBe(text);
  });
});

describe('a query of many words', () => {
  it('scores its MAX_SCORED_TERMS rarest terms only', () => {
    const index = new KeywordIndex(['text']);
    const rare = Array.from({ length: 100 }, (_, i) => `rare${i}word`);
    rare.forEach((word, i) => index.upsert(`rare-${i}`, { text: `${word} filler` }));
    for (let i = 0; i < 100; i++) index.upsert(`common-${i}`, { text: `common filler ${i}` });
    const hits = index.top(['common', ...rare].join(' '), 500);
    expect(hits).toHaveLength(MAX_SCORED_TERMS);
    expect(hits.every((hit) => hit.id.startsWith('rare-'))).toBe(true);
  });
});

describe('texts and queries of many distinct words', () => {
  // Distinct letters-only words ("wa", "wb", …, "wza"…): no digits, so each is stemmed like a word.
  const word = (i: number) => `w${i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)])}x`;

  it(`indexes the first MAX_TEXT_TERMS distinct tokens of a text, every occurrence of them, and stems no other`, () => {
    const words = Array.from({ length: MAX_TEXT_TERMS + 5000 }, (_, i) => word(i));
    const text = `${words.join(' ')} ${words[0]} ${words[MAX_TEXT_TERMS + 10]}`;
    const calls = stemmerCalls.count;
    const terms = keywordTerms(text);
    expect(new Set(terms).size).toBe(MAX_TEXT_TERMS);
    expect(terms).toHaveLength(MAX_TEXT_TERMS + 1);
    // The repeat of the first word may be stemmed again (the stem cache is bounded); the 5,000 new words are not.
    expect(stemmerCalls.count - calls).toBeLessThanOrEqual(MAX_TEXT_TERMS + 1);
  });

  it('analyses the first MAX_QUERY_WORDS distinct words of a query', () => {
    const words = Array.from({ length: 5 * MAX_QUERY_WORDS }, (_, i) => word(i));
    const own = queryTerms(words.join(' '), 0).filter((term) => term.weight === 1);
    expect(own.length).toBeGreaterThan(MAX_QUERY_WORDS / 2);
    expect(own.length).toBeLessThanOrEqual(MAX_QUERY_WORDS);
    const index = new KeywordIndex(['text']);
    index.upsert('early', { text: words[3] });
    index.upsert('late', { text: words[4 * MAX_QUERY_WORDS] });
    expect(index.top(words.join(' '), 10).map((hit) => hit.id)).toEqual(['early']);
  });
});

describe('a keyword ranking that runs long', () => {
  const index = new KeywordIndex(['text']);
  for (let i = 0; i < 20_000; i++) index.upsert(`d${i}`, { text: `common words ${i % 7} and rare${i}` });

  it.each([true, false])('calls check as it walks (prune: %s), and stops when check throws', (prune) => {
    let calls = 0;
    index.top('common words', 5, { prune, check: () => void calls++ });
    expect(calls).toBeGreaterThan(0);
    const ended = new Error('the request ended');
    expect(() =>
      index.top('common words', 5, {
        prune,
        check: () => {
          throw ended;
        },
      }),
    ).toThrow(ended);
  });
});
