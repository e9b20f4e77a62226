import type { Document } from 'mongodb';
import { silentLogger } from '../../src/logger';
import { DocumentIds } from '../../src/search/document-ids';
import { SearchIndexes, type SearchIndex } from '../../src/search/search-index';
import type { SpaceDefinition } from '../../src/search/space';
import { VectorStore, unitVector, type Passing, type ScoredRow } from '../../src/search/vector-store';
import { createTestApp, stopFollowing, type TestApp } from '../support/app';
import { openTestDatabase, type TestDatabase } from '../support/db';
import {
  DeleteExperienceDocument,
  LearnFromTaskDocument,
  RecordExperiencesDocument,
  RecordTaskDocument,
  SimilarTasksDocument,
  SearchExperiencesDocument,
  UpdateExperienceDocument,
  type ExperienceFilter,
  type SearchMode,
} from '../support/generated/graphql';
import { describeInProcessIndex } from '../support/search-path';
import { embeddingLikeVectors, seededRandom } from '../support/vectors';

/** A {@link Passing} over the ids of `documents` that `passes`. */
function passingOf(
  documents: DocumentIds,
  ids: readonly string[],
  passes: (id: string, i: number) => boolean,
): Passing {
  const listed = ids.filter(passes).map((id) => documents.number(id));
  const bits = new Uint8Array(documents.capacity);
  for (const number of listed) bits[number] = 1;
  const numbers = Int32Array.from(listed).sort();
  return { bits, count: listed.length, numbers: () => numbers };
}

/** Of the exact top `truth`, how many `found` holds: a hit scoring at least the exact k-th (ties) counts. */
function recall(found: ScoredRow[], truth: ScoredRow[]): number {
  if (!truth.length) return 1;
  const last = truth[truth.length - 1].score;
  return Math.min(truth.length, found.filter((hit) => hit.score >= last - 1e-6).length) / truth.length;
}

describe('VectorStore filtered search at any selectivity', () => {
  const DIMENSIONS = 32;
  const COUNT = 3000;
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 21, latent: 12 });
  const documents = new DocumentIds();
  const store = new VectorStore(DIMENSIONS, 64, documents);
  const ids = Array.from({ length: COUNT }, (_, i) => `d${i}`);
  const vectors: Float32Array[] = [];
  const queries = Array.from({ length: 20 }, next);

  beforeAll(async () => {
    const distinct = Array.from({ length: COUNT - 200 }, next);
    // The last 200 ids share 20 vectors (templated texts embed so): a group's ids may pass or not one by one.
    for (let i = 0; i < COUNT; i++) vectors.push(i < COUNT - 200 ? distinct[i] : distinct[i % 20]);
    await store.addMany(ids.map((id, i) => ({ id, vector: vectors[i] })));
  });

  /** The exact top k of the passing ids, by brute force over the inserted vectors (ties: by row, as TopK does). */
  function bruteForce(query: Float32Array, k: number, passing: Passing): ScoredRow[] {
    const unit = unitVector(query)!;
    return ids
      .filter((id) => passing.bits[documents.numberOf(id)!] === 1)
      .map((id) => ({ row: store.rowOf(id)!, score: store.score(store.rowOf(id)!, unit) }))
      .sort((a, b) => b.score - a.score || a.row - b.row)
      .slice(0, k);
  }

  it.each([0.01, 0.05, 0.2, 0.5, 1])(
    'keeps %p of the space: every hit passes, the exact scan equals brute force, the graph walk has recall@10 ≥ 0.95',
    async (share) => {
      const random = seededRandom(Math.round(share * 1000) + 5);
      const passing = passingOf(documents, ids, () => random() < share);
      let graphRecall = 0;
      for (const query of queries) {
        const unit = unitVector(query)!;
        const truth = bruteForce(query, 10, passing);
        const exact = store.exactPassing(unit, 10, passing);
        expect(exact).toEqual(truth.map(({ row, score }) => ({ row, score: expect.closeTo(score, 6) as number })));
        // The graph, whatever the share (exactMax 0), and as the server chooses.
        const walked = await store.searchPassing(unit, 10, passing, 0);
        const chosen = await store.searchPassing(unit, 10, passing);
        for (const hit of [...walked, ...chosen])
          expect(passing.bits[documents.numberOf(store.idOf(hit.row))!]).toBe(1);
        expect(walked).toHaveLength(truth.length);
        expect(chosen).toHaveLength(truth.length);
        graphRecall += recall(walked, truth) / queries.length;
        expect(recall(chosen, truth)).toBeGreaterThanOrEqual(0.9);
      }
      expect(graphRecall).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('finds the passing ids even when the graph’s best candidates all fail (the filter keeps the farthest)', async () => {
    const query = queries[0];
    const unit = unitVector(query)!;
    const order = ids
      .map((id, i) => ({ id, score: store.score(i, unit) }))
      .sort((a, b) => a.score - b.score)
      .map(({ id }) => id);
    const farthest = new Set(order.slice(0, 40));
    const passing = passingOf(documents, ids, (id) => farthest.has(id));
    const found = await store.searchPassing(unit, 10, passing, 0);
    expect(found.map(({ row }) => store.idOf(row))).toEqual(
      bruteForce(query, 10, passing).map(({ row }) => store.idOf(row)),
    );
  });

  it('returns every passing id when fewer than k pass, and nothing when none does', async () => {
    const unit = unitVector(queries[1])!;
    const few = passingOf(documents, ids, (_, i) => i % 1000 === 7);
    expect((await store.searchPassing(unit, 10, few, 0)).map(({ row }) => store.idOf(row)).sort()).toEqual([
      'd1007',
      'd2007',
      'd7',
    ]);
    expect(
      await store.searchPassing(
        unit,
        10,
        passingOf(documents, ids, () => false),
        0,
      ),
    ).toEqual([]);
  });

  it('offers only the passing ids of a group of identical vectors', async () => {
    // d2800 … d2999 share 20 vectors: d2800 and d2820 share one; only d2820 passes.
    const passing = passingOf(documents, ids, (id) => id === 'd2820' || id === 'd5');
    const unit = unitVector(vectors[2800])!;
    for (const found of [store.exactPassing(unit, 5, passing), await store.searchPassing(unit, 5, passing, 0)]) {
      expect(found.map(({ row }) => store.idOf(row))).toEqual(['d2820', 'd5']);
      expect(found[0].score).toBeCloseTo(1, 5);
    }
  });
});

describe('filtered search over a real database: cached filters kept current', () => {
  const DIMENSIONS = 16;
  const SPACE: SpaceDefinition = {
    name: 'cards.text',
    collection: 'cards',
    idField: 'card_id',
    vectorPath: 'embeddings.text_embedding',
    textPaths: ['text'],
  };
  const COUNT = 600;
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 5, latent: 8 });
  const random = seededRandom(9);
  const WORDS = ['river', 'stone', 'lantern', 'harbour', 'meadow', 'copper', 'signal', 'orchard'];
  let database: TestDatabase;
  let index: SearchIndex;
  /** The documents as stored (kept in step with the writes of the tests). */
  const stored = new Map<string, Document>();
  const query = next();

  const tierOf = (i: number) => (i % 100 === 0 ? 'rare' : i % 10 === 0 ? 'some' : i % 2 === 0 ? 'half' : 'rest');
  const textOf = () => Array.from({ length: 4 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const card = (i: number, tier: string): Document => ({
    card_id: `c${i}`,
    tier,
    text: textOf(),
    embeddings: { text_embedding: Array.from(next()) },
  });

  beforeAll(async () => {
    database = await openTestDatabase();
    for (let i = 0; i < COUNT; i++) stored.set(`c${i}`, card(i, tierOf(i)));
    await database.db.collection('cards').insertMany([...stored.values()].map((document) => ({ ...document })));
    const search = new SearchIndexes({ mode: 'memory', dimensions: DIMENSIONS, logger: silentLogger });
    search.defineSpace(SPACE);
    index = search.forDb(database.db);
    await index.build(SPACE.name);
  });
  afterAll(() => database?.close());

  const vectorOf = (document: Document) => Float32Array.from(document.embeddings.text_embedding as number[]);

  /** The exact top k ids of the stored documents that pass, by cosine. */
  function exactTop(k: number, passes: (document: Document) => boolean): Array<{ id: string; score: number }> {
    const unit = unitVector(query)!;
    return [...stored.values()]
      .filter(passes)
      .map((document) => {
        const vector = unitVector(vectorOf(document))!;
        let score = 0;
        for (let d = 0; d < DIMENSIONS; d++) score += vector[d] * unit[d];
        return { id: document.card_id as string, score };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  }

  /** Vector and keyword searches with `filter` against the exact answers over the documents that pass. */
  async function expectExact(filter: Document, passes: (document: Document) => boolean): Promise<void> {
    const vectorHits = await index.searchVector(SPACE.name, { vector: query, k: 10, filter });
    const truth = exactTop(10, passes);
    expect(vectorHits.map((hit) => hit.id)).toEqual(truth.map((hit) => hit.id));
    vectorHits.forEach((hit, i) => expect(hit.score).toBeCloseTo(truth[i].score, 5));
    // Keyword: the unfiltered ranking of every document, then those that pass; the same scores, best first.
    const all = await index.searchKeyword(SPACE.name, { text: 'lantern copper', k: COUNT * 2 });
    const expected = all.filter((hit) => stored.has(hit.id) && passes(stored.get(hit.id)!)).slice(0, 10);
    const keywordHits = await index.searchKeyword(SPACE.name, { text: 'lantern copper', k: 10, filter });
    expect(keywordHits.map((hit) => hit.score)).toEqual(expected.map((hit) => hit.score));
    for (const hit of keywordHits) expect(passes(stored.get(hit.id)!)).toBe(true);
  }

  it.each([
    ['1% (rare)', { tier: 'rare' }],
    ['9% (some)', { tier: 'some' }],
    ['40% (half)', { tier: 'half' }],
    ['50% (rest)', { tier: 'rest' }],
    ['99% (not rare)', { tier: { $ne: 'rare' } }],
  ])('returns exactly the top 10 of the documents that pass at %s', async (_, filter) => {
    const tier = (filter as Document).tier;
    await expectExact(filter, (document) =>
      typeof tier === 'string' ? document.tier === tier : document.tier !== 'rare',
    );
  });

  it('resolves a filter once, then asks MongoDB only about the documents written since', async () => {
    const filter = { tier: 'some' };
    const passes = (document: Document) => document.tier === 'some';
    await index.searchVector(SPACE.name, { vector: query, k: 5, filter });
    database.commands.reset();
    await expectExact(filter, passes);
    expect(database.commands.count('find', 'cards')).toBe(0);

    // An update that moves a document into the filter (the closest one to the query, so it must come first), a delete
    // of the best passing one, an insert that passes: written as a service does, then told to the index.
    const cards = database.db.collection('cards');
    const [closest] = exactTop(1, (document) => document.tier !== 'some');
    const [bestPassing] = exactTop(1, passes);
    await cards.updateOne({ card_id: closest.id }, { $set: { tier: 'some' } });
    stored.get(closest.id)!.tier = 'some';
    const moved = stored.get(closest.id)!;
    index.upsert(SPACE.name, closest.id, vectorOf(moved), moved.text as string);
    await cards.deleteOne({ card_id: bestPassing.id });
    stored.delete(bestPassing.id);
    index.remove(SPACE.name, bestPassing.id);
    const inserted: Document = { ...card(COUNT, 'some'), text: 'lantern copper lantern copper' };
    await cards.insertOne({ ...inserted });
    stored.set(inserted.card_id as string, inserted);
    index.upsert(SPACE.name, inserted.card_id as string, vectorOf(inserted), inserted.text as string);

    database.commands.reset();
    const hits = await index.searchVector(SPACE.name, { vector: query, k: 10, filter });
    expect(hits[0].id).toBe(closest.id);
    expect(hits.map((hit) => hit.id)).not.toContain(bestPassing.id);
    // One check of the three written ids ($and with the filter), no listing of the filter again.
    const finds = database.commands.events.filter((event) => event.commandName === 'find');
    expect(finds).toHaveLength(1);
    expect(finds[0].command.filter).toEqual({ $and: [filter, { card_id: { $in: expect.any(Array) as unknown } }] });
    await expectExact(filter, passes);
    const keyword = await index.searchKeyword(SPACE.name, { text: 'lantern copper', k: 3, filter });
    expect(keyword[0].id).toBe(inserted.card_id);

    // Moved out again: no longer returned.
    await cards.updateOne({ card_id: closest.id }, { $set: { tier: 'rest' } });
    stored.get(closest.id)!.tier = 'rest';
    index.upsert(SPACE.name, closest.id, vectorOf(moved), moved.text as string);
    await expectExact(filter, passes);
  });
});

describeInProcessIndex('searchExperiences with a filter follows writes of fields no space indexes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app?.close());

  const MODES: SearchMode[] = ['HYBRID', 'KEYWORD', 'VECTOR'];
  const found = async (filter: ExperienceFilter, mode: SearchMode) =>
    (
      await app.run(SearchExperiencesDocument, { query: 'rotate the database credentials', filter, mode })
    ).searchExperiences.map((hit) => hit.experience.experienceId);

  it('sees an update of tags or agent (no text changed, so no index write) at once', async () => {
    const recorded = await app.run(RecordExperiencesDocument, {
      inputs: ['a', 'b', 'c'].map((agent, i) => ({
        primaryGoalDescription: `Rotate the database credentials of service ${i}`,
        subTaskDescription: 'Issue new keys and revoke the old ones',
        initiatingAgentId: agent,
        finalOutcome: 'SUCCESS' as const,
      })),
    });
    const [first, second] = recorded.recordExperiences.map((experience) => experience.experienceId);
    for (const mode of MODES) {
      expect(await found({ tagsAny: ['urgent'] }, mode)).toEqual([]);
      expect(await found({ initiatingAgentId: 'a' }, mode)).toEqual([first]);
    }

    // The update marks the experience in the cached filters: the very next search asks about it again (without the
    // change stream, which would bring it a few milliseconds later).
    await stopFollowing(app);
    await app.run(UpdateExperienceDocument, { id: second, input: { tags: ['urgent'], initiatingAgentId: 'a' } });
    for (const mode of MODES) {
      expect(await found({ tagsAny: ['urgent'] }, mode)).toEqual([second]);
      expect((await found({ initiatingAgentId: 'a' }, mode)).sort()).toEqual([first, second].sort());
      expect(await found({ initiatingAgentId: 'b' }, mode)).toEqual([]);
    }

    // A delete is seen at once: the service removes the experience from the spaces, which marks it.
    await app.run(DeleteExperienceDocument, { id: second });
    for (const mode of MODES) {
      expect(await found({ tagsAny: ['urgent'] }, mode)).toEqual([]);
      expect(await found({ initiatingAgentId: 'a' }, mode)).toEqual([first]);
    }
  });
});

describeInProcessIndex('similarTasks with a status filter follows learnFromTask', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app?.close());

  it('finds a task under its new status right after learnFromTask', async () => {
    const goal = 'List orders in Berlin';
    await app.run(RecordTaskDocument, { input: { taskId: 't1', originalQuery: goal, goal, status: 'PAUSED' } });
    const completed = async () =>
      // Words of the goal in another order: found by the vector and keyword parts, whose filters are cached (a goal
      // template that unifies would be looked up in MongoDB, filter and all).
      (
        await app.run(SimilarTasksDocument, { query: 'Berlin orders list', status: 'COMPLETED', minSimilarity: 0 })
      ).similarTasks!.tasks.map((task) => task.taskId);
    expect(await completed()).toEqual([]);
    // Without the change stream only the service's own mark can tell the cached filter.
    await stopFollowing(app);
    await app.run(LearnFromTaskDocument, {
      input: {
        taskId: 't1',
        status: 'COMPLETED',
        metrics: { executionTime: 100, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
      },
    });
    expect(await completed()).toEqual(['t1']);
  });
});
