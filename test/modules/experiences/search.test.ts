import { HashEmbeddingProvider } from '../../../src/embeddings/hash.provider';
import { createTestApp, type ExecutionResult, type Operation, type TestApp } from '../../support/app';
import { seedExperience, withSeedVectors } from '../../support/fixtures/experience-seed';
import { CountingHashProvider } from '../../support/fixtures/experience-providers';
import {
  type SearchMode,
  type ExperienceOutcome,
  type RecordExperienceInput,
  type SearchExperiencesQueryVariables,
  type SearchExperiencesQuery,
  type RankedSearchExperiencesQueryVariables,
  RankedSearchExperiencesDocument,
  type ReembedStatusQuery,
  type ReembedStatusQueryVariables,
  DeleteExperienceDocument,
  RecordExperienceDocument,
  RecordExperiencesDocument,
  ReembedDocument,
  ReembedStatusDocument,
  SearchExperiencesDocument,
  SimilarExperiencesDocument,
  UpdateExperienceDocument,
} from '../../support/generated/graphql';

const COLLECTION = 'eat_agent_experiences';

interface Hit {
  score: number;
  vectorScore: number | null;
  keywordScore: number | null;
  matchedField: string;
  experience: { experienceId: string };
}

function experience(
  experienceId: string,
  primaryGoalDescription: string,
  subTaskDescription: string,
  inputContextSummary: string | null,
  outputSummary: string | null,
  initiatingAgentId: string,
  finalOutcome: ExperienceOutcome,
  tags: string[],
): RecordExperienceInput {
  return {
    experienceId,
    primaryGoalDescription,
    subTaskDescription,
    inputContextSummary,
    outputSummary,
    initiatingAgentId,
    finalOutcome,
    tags,
  };
}

const BASE = [
  experience(
    'flight',
    'Book a flight from London to New York',
    'Search British Airways flights for the dates',
    'Business class seat with a morning departure',
    'Presented three itineraries to the traveller',
    'agent-a',
    'SUCCESS',
    ['travel'],
  ),
  experience(
    'invoice',
    'Extract totals from supplier invoices',
    'Run OCR on scanned invoice pages',
    'Forty scanned PDF documents from vendors',
    'Spreadsheet of invoice totals',
    'agent-b',
    'FAILURE',
    ['finance'],
  ),
  experience(
    'manual',
    'Translate the product manual into German',
    'Translate the installation chapter',
    'Glossary of technical terms from the client',
    'German chapter delivered with consistent terminology',
    'agent-c',
    'SUCCESS',
    ['docs'],
  ),
  experience(
    'certs',
    'Rotate TLS certificates on the load balancers',
    'Deploy new certificates without downtime',
    'Certificates expire in five days',
    'No dropped connections during the rotation',
    'agent-a',
    'PARTIAL_SUCCESS',
    ['ops'],
  ),
];
/** Close to the flight query: ten by agent-a (closest), four by agent-b (a little further). */
const CLUSTER = [
  ...Array.from({ length: 10 }, (_, i) =>
    experience(
      `near-${i}`,
      `Book a flight from London to New York on day ${i + 1}`,
      'Search flights',
      null,
      null,
      'agent-a',
      'SUCCESS',
      ['travel'],
    ),
  ),
  ...Array.from({ length: 4 }, (_, i) =>
    experience(
      `far-${i}`,
      `Find a cheap flight to New York for a family of ${i + 3}`,
      'Compare fares',
      null,
      null,
      'agent-b',
      'SUCCESS',
      ['travel'],
    ),
  ),
];

const ids = (hits: Hit[]) => hits.map((hit) => hit.experience.experienceId);

describe('searchExperiences', () => {
  let app: TestApp;
  const search = async (variables: SearchExperiencesQueryVariables): Promise<Hit[]> =>
    (await app.run(SearchExperiencesDocument, variables)).searchExperiences;

  beforeAll(async () => {
    app = await createTestApp();
    await app.run(RecordExperiencesDocument, { inputs: [...BASE, ...CLUSTER] });
  });
  afterAll(() => app.close());

  it('searches each embeddable field and names the field that matched', async () => {
    const cases: [string, string, string][] = [
      ['Rotate TLS certificates on the load balancers', 'certs', 'PRIMARY_GOAL'],
      ['Deploy new certificates without downtime', 'certs', 'SUB_TASK'],
      ['Glossary of technical terms from the client', 'manual', 'INPUT_CONTEXT'],
      ['Spreadsheet of invoice totals', 'invoice', 'OUTPUT_SUMMARY'],
    ];
    for (const [query, id, field] of cases) {
      const [best] = await search({ query, mode: 'VECTOR' });
      expect({ query, id: best.experience.experienceId, field: best.matchedField }).toEqual({ query, id, field });
      expect(best.vectorScore).toBeCloseTo(1, 5);
    }
  });

  it('fields restricts matching to the requested fields', async () => {
    const hits = await search({
      query: 'Glossary of technical terms from the client',
      fields: ['PRIMARY_GOAL', 'OUTPUT_SUMMARY'],
      mode: 'VECTOR',
    });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => ['PRIMARY_GOAL', 'OUTPUT_SUMMARY'].includes(hit.matchedField))).toBe(true);
    expect(hits.every((hit) => hit.vectorScore! < 0.9)).toBe(true);
  });

  it('applies the filter before the limit: excluding the best matches still returns `limit` results', async () => {
    const query = 'Book a flight from London to New York';
    const unfiltered = await search({ query, limit: 3, mode: 'VECTOR' });
    expect(ids(unfiltered).every((id) => id === 'flight' || id.startsWith('near-'))).toBe(true);

    const byAgentB = await search({ query, limit: 3, mode: 'VECTOR', filter: { initiatingAgentId: 'agent-b' } });
    expect(byAgentB).toHaveLength(3);
    expect(ids(byAgentB).every((id) => id.startsWith('far-'))).toBe(true);

    const everyAgentB = await search({ query, limit: 10, filter: { initiatingAgentId: 'agent-b' } });
    expect(ids(everyAgentB).sort()).toEqual(['far-0', 'far-1', 'far-2', 'far-3', 'invoice']);

    const combined = await search({
      query,
      limit: 5,
      filter: { tagsAny: ['travel'], outcomes: ['SUCCESS'], initiatingAgentId: 'agent-a' },
    });
    expect(combined).toHaveLength(5);
    expect(ids(combined).every((id) => id === 'flight' || id.startsWith('near-'))).toBe(true);

    const hybrid = await search({ query, limit: 4, filter: { outcomes: ['PARTIAL_SUCCESS', 'FAILURE'] } });
    expect(ids(hybrid).sort()).toEqual(['certs', 'invoice']);
  });

  it('VECTOR scores by cosine, KEYWORD by BM25, HYBRID fuses both (0.5 / 0.5) and reports each part', async () => {
    const query = 'invoice totals';
    const relevanceOnly = { relevanceOnly: true };
    const search = async (variables: RankedSearchExperiencesQueryVariables) =>
      (await app.run(RankedSearchExperiencesDocument, { ...variables, ranking: relevanceOnly })).searchExperiences;
    const keyword = await search({ query, mode: 'KEYWORD' });
    expect(keyword[0].experience.experienceId).toBe('invoice');
    for (const hit of keyword) {
      expect(hit.vectorScore).toBeNull();
      expect(hit.keywordScore).toBeGreaterThan(0);
      expect(hit.score).toBeCloseTo(hit.keywordScore!, 10);
    }
    const vector = await search({ query, mode: 'VECTOR' });
    for (const hit of vector) {
      expect(hit.keywordScore).toBeNull();
      expect(hit.score).toBeCloseTo(Math.max(0, hit.vectorScore!), 10);
    }
    const hybrid = await search({ query, mode: 'HYBRID' });
    expect(hybrid[0].experience.experienceId).toBe('invoice');
    expect(hybrid[0].vectorScore).not.toBeNull();
    expect(hybrid[0].keywordScore).not.toBeNull();
    for (const hit of hybrid) {
      expect(hit.score).toBeCloseTo(0.5 * Math.max(0, hit.vectorScore ?? 0) + 0.5 * (hit.keywordScore ?? 0), 10);
    }
    for (const hits of [keyword, vector, hybrid]) {
      expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
    }
  });

  it('minScore drops weaker results and limit caps the list', async () => {
    const query = 'Book a flight from London to New York';
    const all = await search({ query, limit: 100, mode: 'VECTOR' });
    const strong = await search({ query, limit: 100, mode: 'VECTOR', minScore: 0.6 });
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.length).toBeLessThan(all.length);
    expect(strong.every((hit) => hit.score >= 0.6)).toBe(true);
    expect(ids(strong)).toEqual(ids(all).slice(0, strong.length));
    expect(await search({ query, limit: 2 })).toHaveLength(2);
  });

  it('a blank query and a limit outside 1..100 are BAD_USER_INPUT', async () => {
    for (const [variables, field] of [
      [{ query: '   ' }, 'query'],
      [{ query: 'flight', limit: 0 }, 'limit'],
      [{ query: 'flight', limit: 101 }, 'limit'],
    ] as const) {
      const result = await app.execute(SearchExperiencesDocument, variables);
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
  });

  it('every write keeps the index current: record, update, delete', async () => {
    const find = async (query: string, mode: SearchMode) => ids(await search({ query, mode, limit: 5 }));
    await app.run(RecordExperienceDocument, {
      input: {
        experienceId: 'lab',
        primaryGoalDescription: 'Calibrate the quantum spectrometer',
        subTaskDescription: 'Measure the baseline',
        initiatingAgentId: 'agent-lab',
        finalOutcome: 'SUCCESS',
      },
    });
    expect(await find('quantum spectrometer', 'KEYWORD')).toEqual(['lab']);
    expect((await find('Calibrate the quantum spectrometer', 'VECTOR'))[0]).toBe('lab');

    await app.run(UpdateExperienceDocument, {
      id: 'lab',
      input: { primaryGoalDescription: 'Calibrate the optical telescope' },
    });
    expect(await find('quantum spectrometer', 'KEYWORD')).toEqual([]);
    expect(await find('optical telescope', 'KEYWORD')).toEqual(['lab']);
    const [top] = await search({ query: 'Calibrate the optical telescope', mode: 'VECTOR' });
    expect(top.experience.experienceId).toBe('lab');
    expect(top.vectorScore).toBeCloseTo(1, 5);

    await app.run(DeleteExperienceDocument, { id: 'lab' });
    expect(await find('optical telescope', 'KEYWORD')).toEqual([]);
    expect(await find('Calibrate the optical telescope', 'VECTOR')).not.toContain('lab');
  });

  it('Experience.similar returns other experiences by primary goal, never itself', async () => {
    const { experience } = await app.run(SimilarExperiencesDocument, { id: 'near-0', limit: 3 });
    expect(experience!.similar).toHaveLength(3);
    expect(ids(experience!.similar)).not.toContain('near-0');
    expect(ids(experience!.similar).every((id: string) => id === 'flight' || id.startsWith('near-'))).toBe(true);
    expect(experience!.similar.every((hit: Hit) => hit.matchedField === 'PRIMARY_GOAL')).toBe(true);
  });

  it('reads only the fields the hits select, and those partial reads answer no other read of the request', async () => {
    const fields = 'experienceId primaryGoalDescription subTaskDescription finalOutcome tags';
    const { searchExperiences } = await app.run(
      `query { searchExperiences(query: "Book a flight from London to New York", limit: 5) {
        experience { experienceId primaryGoalDescription similar(limit: 4) { experience { ${fields} } } } } }`,
    );
    expect(searchExperiences).toHaveLength(5);
    const similar = searchExperiences.flatMap(
      (hit: { experience: { similar: Array<{ experience: { experienceId: string } }> } }) => hit.experience.similar,
    );
    // The similar experiences of one hit are mostly other hits, read by the search with two fields only.
    const hitIds = new Set(ids(searchExperiences));
    expect(similar.filter((hit: Hit) => hitIds.has(hit.experience.experienceId)).length).toBeGreaterThan(5);
    for (const { experience: found } of similar) {
      const { experience: whole } = await app.run(`query ($id: ID!) { experience(id: $id) { ${fields} } }`, {
        id: found.experienceId,
      });
      expect(found).toEqual(whole);
    }
  });

  it('a second app over the same database builds its index from MongoDB and returns the same results', async () => {
    const restarted = await createTestApp();
    try {
      const sameDb = { db: restarted.client.db(app.db.databaseName) };
      for (const variables of [
        { query: 'Book a flight from London to New York', mode: 'VECTOR', limit: 8 },
        { query: 'invoice totals', mode: 'KEYWORD' },
        { query: 'certificates for the balancers', mode: 'HYBRID' },
        { query: 'Book a flight', filter: { initiatingAgentId: 'agent-b' }, limit: 3 },
      ] satisfies SearchExperiencesQueryVariables[]) {
        const before = await search(variables);
        const after: ExecutionResult<SearchExperiencesQuery> = await restarted.execute(
          SearchExperiencesDocument,
          variables,
          sameDb,
        );
        expect(after.errors).toBeUndefined();
        // The scores' recency factor moves with the clock between the two searches: the same to 6 digits.
        const rounded = (hits: Hit[]) => hits.map((hit) => ({ ...hit, score: hit.score.toFixed(6) }));
        expect(rounded(after.data!.searchExperiences)).toEqual(rounded(before));
      }
    } finally {
      await restarted.close();
    }
  });
});

describe('recordExperiences embedding requests', () => {
  it('embeds a whole batch with one provider request per EMBEDDING_BATCH_SIZE texts, not one per record', async () => {
    const provider = new CountingHashProvider(384);
    const app = await createTestApp({ embeddings: provider, config: { embeddingBatchSize: 16 } });
    try {
      const inputs = Array.from({ length: 30 }, (_, i): RecordExperienceInput => ({
        primaryGoalDescription: `Goal number ${i}`,
        subTaskDescription: `Sub-task number ${i}`,
        inputContextSummary: `Context number ${i}`,
        outputSummary: 'Done.',
        initiatingAgentId: 'agent',
        finalOutcome: 'SUCCESS',
      }));
      await app.run(RecordExperiencesDocument, { inputs });
      const unique = 30 * 3 + 1;
      expect(provider.texts).toBe(unique);
      expect(provider.requests).toHaveLength(Math.ceil(unique / 16));
      expect(provider.requests.every((request) => request.length <= 16)).toBe(true);
      expect(
        await app.db
          .collection(COLLECTION)
          .countDocuments({ 'embeddings.output_summary_embedding': { $exists: true } }),
      ).toBe(30);
    } finally {
      await app.close();
    }
  });
});

describe('embedding model mismatch and reembed', () => {
  let source: TestApp;
  beforeAll(async () => {
    source = await createTestApp();
    const inputs = Array.from({ length: 70 }, (_, i): RecordExperienceInput => ({
      experienceId: `exp-${String(i).padStart(2, '0')}`,
      primaryGoalDescription: `Prepare report number ${i} for the finance team`,
      subTaskDescription: `Collect the figures of month ${i % 12}`,
      outputSummary: i % 2 ? `Report ${i} delivered` : null,
      initiatingAgentId: 'agent-report',
      finalOutcome: 'SUCCESS',
    }));
    await source.run(RecordExperiencesDocument, { inputs });
  });
  afterAll(() => source.close());

  /** An app with another embedder working on `source`'s database (a restart after a provider change). */
  async function withOtherEmbedder(dimensions: number) {
    const app = await createTestApp({ embeddings: new HashEmbeddingProvider(dimensions) });
    const sameDb = { db: app.client.db(source.db.databaseName) };
    return {
      app,
      execute: <TData, TVariables>(document: Operation<TData, TVariables>, variables: NoInfer<TVariables>) =>
        app.execute(document, variables, sameDb),
      run: <TData, TVariables>(document: Operation<TData, TVariables>, variables: NoInfer<TVariables>) =>
        app.run(document, variables, sameDb),
    };
  }

  async function finished(
    run: (
      document: typeof ReembedStatusDocument,
      variables: ReembedStatusQueryVariables,
    ) => Promise<ReembedStatusQuery>,
  ) {
    for (let i = 0; i < 200; i++) {
      const { reembedStatus } = await run(ReembedStatusDocument, { collection: 'EXPERIENCES' });
      if (reembedStatus && reembedStatus.state !== 'RUNNING') return reembedStatus;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('reembed did not finish');
  }

  it('an imported document without embedding_model makes search a clear error instead of a silent score', async () => {
    await source.db.collection(COLLECTION).insertOne(await withSeedVectors(source.deps.embeddings));
    const result = await source.execute(SearchExperiencesDocument, { query: 'flight' });
    expect(result.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'EMBEDDING_MODEL_MISMATCH',
      stored: null,
    });
    expect(result.errors![0].message).toMatch(/reembed/);
    // Keyword search compares no vectors: it still works.
    const keyword = await source.execute(SearchExperiencesDocument, { query: 'British Airways', mode: 'KEYWORD' });
    expect(keyword.errors).toBeUndefined();
  });

  it('after a provider change, search is refused; reembed rewrites every vector in the background and search works again', async () => {
    const other = await withOtherEmbedder(256);
    try {
      const refused = await other.execute(SearchExperiencesDocument, {
        query: 'Prepare report number 7 for the finance team',
      });
      expect(refused.errors![0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'EMBEDDING_MODEL_MISMATCH',
        current: { provider: 'hash', model: 'feature-hash-v1-256', dimensions: 256 },
      });
      const similar = await other.execute(SimilarExperiencesDocument, { id: 'exp-07' });
      expect(similar.errors![0].extensions).toMatchObject({ reason: 'EMBEDDING_MODEL_MISMATCH' });

      expect((await other.run(ReembedStatusDocument, { collection: 'EXPERIENCES' })).reembedStatus).toBeNull();
      const { reembed } = await other.run(ReembedDocument, { collection: 'EXPERIENCES' });
      expect(reembed).toMatchObject({
        collection: 'EXPERIENCES',
        state: 'RUNNING',
        processed: 0,
        total: 71,
        finishedAt: null,
        error: null,
      });
      const done = await finished(other.run);
      expect(done).toMatchObject({
        id: reembed.id,
        state: 'DONE',
        processed: 71,
        total: 71,
        model: { dimensions: 256 },
      });
      expect(done.finishedAt).not.toBeNull();

      const documents = await source.db.collection(COLLECTION).find().toArray();
      for (const document of documents) {
        expect(document.embedding_model).toEqual({ provider: 'hash', model: 'feature-hash-v1-256', dimensions: 256 });
        expect(document.embeddings.primary_goal_description_embedding).toHaveLength(256);
        expect(Boolean(document.embeddings.output_summary_embedding)).toBe(Boolean(document.output_summary));
      }
      const { searchExperiences } = await other.run(SearchExperiencesDocument, {
        query: 'Prepare report number 7 for the finance team',
        mode: 'VECTOR',
        limit: 1,
      });
      expect(searchExperiences[0]).toMatchObject({
        experience: { experienceId: 'exp-07' },
        matchedField: 'PRIMARY_GOAL',
      });
      expect(searchExperiences[0].vectorScore).toBeCloseTo(1, 5);
      const { searchExperiences: seed } = await other.run(SearchExperiencesDocument, {
        query: seedExperience.primary_goal_description,
        mode: 'VECTOR',
        limit: 1,
      });
      expect(seed[0].experience.experienceId).toBe(seedExperience.experience_id);

      // Nothing left to do: a new run finishes at once.
      const again = (await other.run(ReembedDocument, { collection: 'EXPERIENCES' })).reembed;
      expect(again).toMatchObject({ state: 'DONE', processed: 0, total: 0 });
    } finally {
      await other.app.close();
    }
  });

  it('returns the running job instead of starting a second one, and resumes an interrupted job where it stopped', async () => {
    const other = await withOtherEmbedder(128);
    const jobs = source.db.collection<{ _id: string }>('reembed_jobs');
    const model = other.app.deps.embedder.signature;
    try {
      const total = await source.db.collection(COLLECTION).countDocuments();
      const running = {
        run_id: 'elsewhere',
        state: 'running',
        processed: 5,
        total,
        started_at: new Date(),
        finished_at: null,
        error: null,
        model,
      };
      await jobs.replaceOne(
        { _id: COLLECTION },
        { ...running, lease_until: new Date(Date.now() + 60_000) },
        { upsert: true },
      );
      const { reembed } = await other.run(ReembedDocument, { collection: 'EXPERIENCES' });
      expect(reembed).toMatchObject({ id: 'elsewhere', state: 'RUNNING', processed: 5 });
      expect(await source.db.collection(COLLECTION).countDocuments({ 'embedding_model.dimensions': 128 })).toBe(0);

      // The server running it stopped: its lease ran out after it had re-embedded 5 documents.
      const started = new Date(Date.now() - 60_000);
      await jobs.updateOne(
        { _id: COLLECTION },
        { $set: { lease_until: new Date(Date.now() - 1), started_at: started } },
      );
      for (const id of ['exp-00', 'exp-01', 'exp-02', 'exp-03', 'exp-04']) {
        const document = await source.db.collection(COLLECTION).findOne({ experience_id: id });
        const [primary, subTask] = await other.app.deps.embeddings.embed([
          document!.primary_goal_description,
          document!.sub_task_description,
        ]);
        await source.db.collection(COLLECTION).updateOne(
          { experience_id: id },
          {
            $set: {
              embeddings: {
                primary_goal_description_embedding: Array.from(primary),
                sub_task_description_embedding: Array.from(subTask),
              },
              embedding_model: model,
            },
          },
        );
      }
      expect((await other.run(ReembedStatusDocument, { collection: 'EXPERIENCES' })).reembedStatus!.state).toBe(
        'INTERRUPTED',
      );

      const resumed = (await other.run(ReembedDocument, { collection: 'EXPERIENCES' })).reembed;
      expect(resumed).toMatchObject({ state: 'RUNNING', processed: 5, total });
      expect(resumed.id).not.toBe('elsewhere');
      expect(new Date(resumed.startedAt)).toEqual(started);
      const done = await finished(other.run);
      expect(done).toMatchObject({ state: 'DONE', processed: total, total });
      expect(await source.db.collection(COLLECTION).countDocuments({ 'embedding_model.dimensions': 128 })).toBe(total);
    } finally {
      await other.app.close();
    }
  });
});
