import { createTestApp, type TestApp } from '../../support/app';
import { databaseFingerprint } from '../../support/fingerprint';
import { seedExperience, withSeedVectors } from '../../support/fixtures/experience-seed';
import { CountingHashProvider } from '../../support/fixtures/experience-providers';
import { sessionAlice } from '../../support/fixtures/session-alice';
import {
  type ExperienceOutcome,
  type RecordExperienceInput,
  AddExperienceFeedbackDocument,
  DeleteExperienceDocument,
  ExperienceDocument,
  ExperienceSessionDocument,
  ExperienceWithEmbeddingsDocument,
  ExperiencesDocument,
  RecordExperienceDocument,
  RecordExperiencesDocument,
  UpdateExperienceDocument,
} from '../../support/generated/graphql';

const COLLECTION = 'eat_agent_experiences';

/** One experience; copies of it are stored as copies (`dedupe: false`): these tests are about records, not duplicates. */
function minimal(overrides: Partial<RecordExperienceInput> = {}): RecordExperienceInput {
  return {
    primaryGoalDescription: 'Book a flight from London to New York.',
    subTaskDescription: 'Search British Airways flights.',
    initiatingAgentId: 'agent_booking',
    finalOutcome: 'SUCCESS',
    dedupe: false,
    ...overrides,
  };
}

describe('experiences: records, updates, lists', () => {
  let app: TestApp;
  const provider = new CountingHashProvider(384);
  beforeAll(async () => {
    app = await createTestApp({ embeddings: provider });
  });
  afterAll(() => app.close());

  it("serves the seed's example document, inserted as it is, with every field", async () => {
    const stored = await withSeedVectors(app.deps.embeddings);
    await app.db.collection(COLLECTION).insertOne({ ...stored });
    const { experience } = await app.run(ExperienceDocument, { id: seedExperience.experience_id });
    expect(experience).toEqual({
      experienceId: 'a1b2c3d4-e5f6-7890-1234-567890abcdef',
      primaryGoalDescription: 'Book a flight from London to New York for next week.',
      subTaskDescription: 'Find available flights on British Airways for the specified route and dates.',
      initiatingAgentId: 'agent_booking_assistant_v1',
      involvedComponents: ['flight_search_api_v2', 'user_preferences_db'],
      inputContextSummary: 'User wants a business class seat, prefers morning departures.',
      keyDecisionsMade: [
        'Decided to query British Airways API first based on user preference.',
        'Filtered out flights with layovers longer than 3 hours.',
      ],
      finalOutcome: 'SUCCESS',
      outputSummary: 'Found 3 suitable flights, presented the cheapest option to the user.',
      feedbackSignals: {
        userRating: 5,
        correctionNeeded: false,
        errorType: null,
        comment: 'Perfect, exactly what I was looking for!',
        data: { user_rating: 5, correction_needed: false, comment: 'Perfect, exactly what I was looking for!' },
      },
      timestamp: '2024-07-30T10:30:00.000Z',
      version: 1,
      workflowId: 'flight_booking_workflow_001',
      sessionId: 'user_session_xyz789',
      tags: ['flight_booking', 'international', 'british_airways'],
      embeddingModel: null,
    });
    const { experience: vectors } = await app.run(ExperienceWithEmbeddingsDocument, {
      id: seedExperience.experience_id,
    });
    expect(vectors!.embeddings).toEqual({
      primaryGoalDescription: stored.embeddings.primary_goal_description_embedding,
      subTaskDescription: stored.embeddings.sub_task_description_embedding,
      inputContextSummary: stored.embeddings.input_context_summary_embedding,
      outputSummary: stored.embeddings.output_summary_embedding,
    });
  });

  it('experience(id) is null for an unknown id', async () => {
    expect((await app.run(ExperienceDocument, { id: 'no-such-experience' })).experience).toBeNull();
  });

  it("recordExperience stores the seed's fields, a UUID, timestamp now, version 1 and four labelled vectors", async () => {
    const before = Date.now();
    const { recordExperience } = await app.run(RecordExperienceDocument, {
      input: minimal({
        involvedComponents: ['flight_search_api_v2'],
        inputContextSummary: 'Business class, morning departures.',
        keyDecisionsMade: ['Query British Airways first.'],
        outputSummary: 'Found 3 flights.',
        feedbackSignals: { userRating: 4, errorType: 'API_error', extra: { latency_ms: 120 } },
        workflowId: 'wf-1',
        sessionId: 'session-1',
        tags: ['flight_booking'],
      }),
    });
    expect(recordExperience.experienceId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const stored = await app.db.collection(COLLECTION).findOne({ experience_id: recordExperience.experienceId });
    expect(stored).toMatchObject({
      primary_goal_description: 'Book a flight from London to New York.',
      sub_task_description: 'Search British Airways flights.',
      initiating_agent_id: 'agent_booking',
      involved_components: ['flight_search_api_v2'],
      input_context_summary: 'Business class, morning departures.',
      key_decisions_made: ['Query British Airways first.'],
      final_outcome: 'success',
      output_summary: 'Found 3 flights.',
      feedback_signals: { user_rating: 4, error_type: 'API_error', latency_ms: 120 },
      version: 1,
      workflow_id: 'wf-1',
      session_id: 'session-1',
      tags: ['flight_booking'],
      embedding_model: { provider: 'hash', model: 'feature-hash-v1-384', dimensions: 384 },
    });
    expect(stored!.timestamp).toBeInstanceOf(Date);
    expect(stored!.timestamp.getTime()).toBeGreaterThanOrEqual(before - 5);
    const [primary] = await app.deps.embeddings.embed(['Book a flight from London to New York.']);
    expect(stored!.embeddings.primary_goal_description_embedding).toEqual(Array.from(primary));
    for (const field of [
      'primary_goal_description',
      'sub_task_description',
      'input_context_summary',
      'output_summary',
    ]) {
      const vector = stored!.embeddings[`${field}_embedding`];
      expect(
        Array.isArray(vector) && vector.length === 384 && vector.every((x: unknown) => typeof x === 'number'),
      ).toBe(true);
    }
    expect(recordExperience.feedbackSignals).toEqual({
      userRating: 4,
      correctionNeeded: null,
      errorType: 'API_error',
      comment: null,
      data: { latency_ms: 120, user_rating: 4, error_type: 'API_error' },
    });
  });

  it("stores each outcome as the seed's lowercase string and serves it as the enum", async () => {
    const outcomes: ExperienceOutcome[] = ['SUCCESS', 'FAILURE', 'PARTIAL_SUCCESS', 'ABANDONED'];
    const { recordExperiences } = await app.run(RecordExperiencesDocument, {
      inputs: outcomes.map((finalOutcome, i) => minimal({ experienceId: `outcome-${i}`, finalOutcome })),
    });
    const stored = await app.db
      .collection(COLLECTION)
      .find({ experience_id: { $in: recordExperiences.map((e: { experienceId: string }) => e.experienceId) } })
      .sort({ experience_id: 1 })
      .toArray();
    expect(stored.map((doc) => doc.final_outcome)).toEqual(['success', 'failure', 'partial_success', 'abandoned']);
    const served = await Promise.all(outcomes.map((_, i) => app.run(ExperienceDocument, { id: `outcome-${i}` })));
    expect(served.map((data) => data.experience!.finalOutcome)).toEqual(outcomes);
  });

  it('keeps a given experienceId and timestamp and omits absent optional fields', async () => {
    await app.run(RecordExperienceDocument, {
      input: minimal({ experienceId: 'chosen-id', timestamp: '2024-01-02T03:04:05.000Z', version: 2 }),
    });
    const stored = await app.db.collection(COLLECTION).findOne({ experience_id: 'chosen-id' });
    expect(stored!.timestamp).toEqual(new Date('2024-01-02T03:04:05.000Z'));
    expect(stored!.version).toBe(2);
    expect(stored).not.toHaveProperty('output_summary');
    expect(stored).not.toHaveProperty('workflow_id');
    expect(Object.keys(stored!.embeddings).sort()).toEqual([
      'primary_goal_description_embedding',
      'sub_task_description_embedding',
    ]);
  });

  it('rejects missing required fields with BAD_USER_INPUT naming each one', async () => {
    const absent = await app.execute(RecordExperienceDocument, {
      // Required fields left out on purpose.
      input: { subTaskDescription: 'x', initiatingAgentId: 'agent' } as RecordExperienceInput,
    });
    expect(absent.errors!.every((error) => error.extensions?.code === 'BAD_USER_INPUT')).toBe(true);
    const messages = absent.errors!.map((error) => error.message).join('\n');
    expect(messages).toContain('primaryGoalDescription');
    expect(messages).toContain('finalOutcome');

    const blank = await app.execute(RecordExperienceDocument, {
      input: minimal({ primaryGoalDescription: '  ', initiatingAgentId: '' }),
    });
    expect(blank.errors).toHaveLength(1);
    expect(blank.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.primaryGoalDescription',
      fields: ['input.primaryGoalDescription', 'input.initiatingAgentId'],
    });

    const inBatch = await app.execute(RecordExperiencesDocument, {
      inputs: [minimal(), minimal({ subTaskDescription: ' ' })],
    });
    expect(inBatch.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'inputs[1].subTaskDescription',
    });
  });

  it('rejects invalid values: version, keyDecisionsMade, feedback keys', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ version: 0 }, 'input.version'],
      [{ keyDecisionsMade: [1, 2] }, 'input.keyDecisionsMade'],
      [{ keyDecisionsMade: 'a string' }, 'input.keyDecisionsMade'],
      [{ feedbackSignals: { extra: { 'a.b': 1 } } }, 'input.feedbackSignals.extra'],
      [{ experienceId: ' ' }, 'input.experienceId'],
      [{ experienceId: 'e'.repeat(201) }, 'input.experienceId'],
      [{ initiatingAgentId: 'a'.repeat(201) }, 'input.initiatingAgentId'],
      [{ workflowId: 'w'.repeat(201) }, 'input.workflowId'],
      [{ sessionId: 's'.repeat(201) }, 'input.sessionId'],
    ];
    const before = await databaseFingerprint(app.db);
    for (const [overrides, field] of cases) {
      const result = await app.execute(RecordExperienceDocument, { input: minimal(overrides) });
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    expect(await databaseFingerprint(app.db)).toEqual(before);
    // Ids of 200 characters are taken; an update is held to the same limit.
    const id = 'e'.repeat(200);
    await app.run(RecordExperienceDocument, {
      input: minimal({ experienceId: id, initiatingAgentId: 'a'.repeat(200) }),
    });
    const updated = await app.execute(UpdateExperienceDocument, { id, input: { initiatingAgentId: 'a'.repeat(201) } });
    expect(updated.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.initiatingAgentId' });
  });

  it('a duplicate experienceId is CONFLICT and a batch containing one stores nothing', async () => {
    await app.run(RecordExperienceDocument, { input: minimal({ experienceId: 'dup-1' }) });
    const single = await app.execute(RecordExperienceDocument, { input: minimal({ experienceId: 'dup-1' }) });
    expect(single.errors![0].extensions).toMatchObject({ code: 'CONFLICT', experienceId: 'dup-1' });

    const batch = await app.execute(RecordExperiencesDocument, {
      inputs: [
        minimal({ experienceId: 'dup-new-a' }),
        minimal({ experienceId: 'dup-1' }),
        minimal({ experienceId: 'dup-new-b' }),
      ],
    });
    expect(batch.errors![0].extensions).toMatchObject({ code: 'CONFLICT', experienceId: 'dup-1' });
    expect(
      await app.db.collection(COLLECTION).countDocuments({ experience_id: { $in: ['dup-new-a', 'dup-new-b'] } }),
    ).toBe(0);

    const repeated = await app.execute(RecordExperiencesDocument, {
      inputs: [minimal({ experienceId: 'twice' }), minimal({ experienceId: 'twice' })],
    });
    expect(repeated.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', experienceId: 'twice' });
  });

  it('a batch whose insert races a concurrent duplicate is rolled back whole (unique index, CONFLICT)', async () => {
    // Bypass the service's pre-check: the id is taken between the check and the insert.
    const { ExperienceRepository } = await import('../../../src/modules/experiences/experience.repository');
    const repository = new ExperienceRepository(app.db);
    await repository.insertAll([
      {
        experience_id: 'race-taken',
        primary_goal_description: 'a',
        sub_task_description: 'b',
        initiating_agent_id: 'c',
        final_outcome: 'success',
        timestamp: new Date(),
        version: 1,
      },
    ]);
    const attempt = repository.insertAll(
      ['race-a', 'race-taken', 'race-b'].map((id) => ({
        experience_id: id,
        primary_goal_description: 'a',
        sub_task_description: 'b',
        initiating_agent_id: 'c',
        final_outcome: 'success',
        timestamp: new Date(),
        version: 1,
      })),
    );
    await expect(attempt).rejects.toMatchObject({ extensions: { code: 'CONFLICT', experienceId: 'race-taken' } });
    expect(await app.db.collection(COLLECTION).countDocuments({ experience_id: { $in: ['race-a', 'race-b'] } })).toBe(
      0,
    );
    expect(await app.db.collection(COLLECTION).countDocuments({ experience_id: 'race-taken' })).toBe(1);
  });

  it('updateExperience changes only the given fields and re-embeds only the changed embeddable ones', async () => {
    await app.run(RecordExperienceDocument, {
      input: minimal({
        experienceId: 'upd-1',
        inputContextSummary: 'Aisle seat.',
        outputSummary: 'Two options.',
        tags: ['a'],
        workflowId: 'wf',
      }),
    });
    const before = await app.db.collection(COLLECTION).findOne({ experience_id: 'upd-1' });
    provider.requests.length = 0;
    const { updateExperience } = await app.run(UpdateExperienceDocument, {
      id: 'upd-1',
      input: {
        subTaskDescription: 'Search Virgin Atlantic flights.',
        outputSummary: null,
        tags: ['a', 'b'],
        workflowId: null,
      },
    });
    expect(provider.requests).toEqual([['Search Virgin Atlantic flights.']]);
    expect(updateExperience).toMatchObject({
      subTaskDescription: 'Search Virgin Atlantic flights.',
      primaryGoalDescription: 'Book a flight from London to New York.',
      inputContextSummary: 'Aisle seat.',
      outputSummary: null,
      workflowId: null,
      tags: ['a', 'b'],
    });
    const after = await app.db.collection(COLLECTION).findOne({ experience_id: 'upd-1' });
    expect(after!.embeddings.primary_goal_description_embedding).toEqual(
      before!.embeddings.primary_goal_description_embedding,
    );
    expect(after!.embeddings.input_context_summary_embedding).toEqual(
      before!.embeddings.input_context_summary_embedding,
    );
    expect(after!.embeddings.sub_task_description_embedding).not.toEqual(
      before!.embeddings.sub_task_description_embedding,
    );
    expect(after!.embeddings).not.toHaveProperty('output_summary_embedding');
    expect(after).not.toHaveProperty('output_summary');
    expect(after).not.toHaveProperty('workflow_id');

    provider.requests.length = 0;
    await app.run(UpdateExperienceDocument, {
      id: 'upd-1',
      input: { primaryGoalDescription: 'Book a flight from London to New York.' },
    });
    expect(provider.requests).toEqual([]);
  });

  it('updateExperience of a document with vectors of another model re-embeds every field, so models never mix', async () => {
    const foreign = Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0));
    await app.db.collection(COLLECTION).insertOne({
      ...seedExperience,
      experience_id: 'imported-1',
      embeddings: Object.fromEntries(
        ['primary_goal_description', 'sub_task_description', 'input_context_summary', 'output_summary'].map((field) => [
          `${field}_embedding`,
          foreign,
        ]),
      ),
      embedding_model: { provider: 'openai', model: 'text-embedding-3-small', dimensions: 384 },
    });
    await app.run(UpdateExperienceDocument, { id: 'imported-1', input: { tags: ['x'] } });
    const after = await app.db.collection(COLLECTION).findOne({ experience_id: 'imported-1' });
    expect(after!.embedding_model).toEqual(app.deps.embedder.signature);
    const expected = await app.deps.embeddings.embed([
      seedExperience.primary_goal_description,
      seedExperience.sub_task_description,
      seedExperience.input_context_summary,
      seedExperience.output_summary,
    ]);
    expect(after!.embeddings).toEqual({
      primary_goal_description_embedding: Array.from(expected[0]),
      sub_task_description_embedding: Array.from(expected[1]),
      input_context_summary_embedding: Array.from(expected[2]),
      output_summary_embedding: Array.from(expected[3]),
    });
  });

  it('updateExperience refuses to clear a required field and is NOT_FOUND for an unknown id', async () => {
    await app.run(RecordExperienceDocument, { input: minimal({ experienceId: 'upd-2' }) });
    const cleared = await app.execute(UpdateExperienceDocument, {
      id: 'upd-2',
      input: { primaryGoalDescription: null, finalOutcome: null },
    });
    expect(cleared.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: ['input.primaryGoalDescription', 'input.finalOutcome'],
    });
    const unknown = await app.execute(UpdateExperienceDocument, { id: 'nope', input: { tags: [] } });
    expect(unknown.errors![0].extensions?.code).toBe('NOT_FOUND');
  });

  it('addExperienceFeedback merges signals into feedback_signals and keeps the other keys', async () => {
    await app.run(RecordExperienceDocument, {
      input: minimal({
        experienceId: 'fb-1',
        feedbackSignals: { userRating: 2, comment: 'slow', extra: { channel: 'chat' } },
      }),
    });
    const { addExperienceFeedback } = await app.run(AddExperienceFeedbackDocument, {
      id: 'fb-1',
      signals: { userRating: 5, correctionNeeded: true, extra: { reviewer: 'lead' } },
    });
    expect(addExperienceFeedback.feedbackSignals).toEqual({
      userRating: 5,
      correctionNeeded: true,
      errorType: null,
      comment: 'slow',
      data: { user_rating: 5, comment: 'slow', channel: 'chat', correction_needed: true, reviewer: 'lead' },
    });

    await app.run(RecordExperienceDocument, { input: minimal({ experienceId: 'fb-2' }) });
    const first = await app.run(AddExperienceFeedbackDocument, { id: 'fb-2', signals: { errorType: 'API_error' } });
    expect(first.addExperienceFeedback.feedbackSignals!.data).toEqual({ error_type: 'API_error' });

    const empty = await app.execute(AddExperienceFeedbackDocument, { id: 'fb-2', signals: {} });
    expect(empty.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'signals' });
    const unknown = await app.execute(AddExperienceFeedbackDocument, { id: 'nope', signals: { userRating: 1 } });
    expect(unknown.errors![0].extensions?.code).toBe('NOT_FOUND');
  });

  it('deleteExperience removes the experience; deleting it again is NOT_FOUND', async () => {
    await app.run(RecordExperienceDocument, { input: minimal({ experienceId: 'del-1' }) });
    expect((await app.run(DeleteExperienceDocument, { id: 'del-1' })).deleteExperience.experienceId).toBe('del-1');
    expect((await app.run(ExperienceDocument, { id: 'del-1' })).experience).toBeNull();
    expect(await app.db.collection(COLLECTION).countDocuments({ experience_id: 'del-1' })).toBe(0);
    const again = await app.execute(DeleteExperienceDocument, { id: 'del-1' });
    expect(again.errors![0].extensions?.code).toBe('NOT_FOUND');
  });

  it("ensureIndexes creates the seed's recommended indexes, experience_id unique", async () => {
    const indexes = await app.db.collection(COLLECTION).listIndexes().toArray();
    const keys = indexes.map((index) => JSON.stringify(index.key));
    for (const key of [
      { experience_id: 1 },
      { timestamp: 1, experience_id: 1 },
      { initiating_agent_id: 1, timestamp: 1 },
      { workflow_id: 1 },
      { session_id: 1 },
      { tags: 1 },
      { final_outcome: 1 },
    ]) {
      expect(keys).toContain(JSON.stringify(key));
    }
    expect(indexes.find((index) => JSON.stringify(index.key) === '{"experience_id":1}')!.unique).toBe(true);
  });
});

describe('experiences: filters, pagination, session', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    const at = (minute: number) => new Date(Date.UTC(2024, 6, 1, 12, minute)).toISOString();
    await app.run(RecordExperiencesDocument, {
      inputs: [
        minimal({
          experienceId: 'f1',
          initiatingAgentId: 'agent-a',
          workflowId: 'wf-1',
          sessionId: 's-1',
          finalOutcome: 'SUCCESS',
          tags: ['travel', 'flight'],
          involvedComponents: ['search_api'],
          timestamp: at(1),
        }),
        minimal({
          experienceId: 'f2',
          initiatingAgentId: 'agent-a',
          workflowId: 'wf-2',
          sessionId: 's-1',
          finalOutcome: 'FAILURE',
          tags: ['travel'],
          involvedComponents: ['search_api', 'db'],
          timestamp: at(2),
        }),
        minimal({
          experienceId: 'f3',
          initiatingAgentId: 'agent-b',
          workflowId: 'wf-1',
          sessionId: 's-2',
          finalOutcome: 'PARTIAL_SUCCESS',
          tags: ['flight'],
          involvedComponents: ['db'],
          timestamp: at(3),
        }),
        minimal({
          experienceId: 'f4',
          initiatingAgentId: 'agent-b',
          finalOutcome: 'ABANDONED',
          tags: ['billing'],
          timestamp: at(3),
        }),
        minimal({
          experienceId: 'f5',
          initiatingAgentId: 'agent-c',
          sessionId: sessionAlice.session_id,
          finalOutcome: 'SUCCESS',
          tags: ['travel', 'flight', 'billing'],
          timestamp: at(5),
        }),
        minimal({
          experienceId: 'f6',
          initiatingAgentId: 'agent-c',
          sessionId: sessionAlice.session_id,
          finalOutcome: 'FAILURE',
          timestamp: at(3),
        }),
        minimal({
          experienceId: 'f7',
          initiatingAgentId: 'agent-a',
          sessionId: 'no-such-session',
          finalOutcome: 'SUCCESS',
          timestamp: at(7),
        }),
      ],
    });
    await app.db.collection<{ _id: string }>('sessions').insertOne({ ...sessionAlice });
  });
  afterAll(() => app.close());

  async function ids(filter: Record<string, unknown>): Promise<string[]> {
    const { experiences } = await app.run(ExperiencesDocument, {
      filter,
      orderBy: { field: 'TIMESTAMP', direction: 'ASC' },
    });
    expect(experiences.totalCount).toBe(experiences.edges.length);
    return experiences.edges.map((edge: { node: { experienceId: string } }) => edge.node.experienceId);
  }

  it('filters by agent, workflow, session, outcomes, tags (any, all), component and time range', async () => {
    expect(await ids({ initiatingAgentId: 'agent-a' })).toEqual(['f1', 'f2', 'f7']);
    expect(await ids({ workflowId: 'wf-1' })).toEqual(['f1', 'f3']);
    expect(await ids({ sessionId: 's-1' })).toEqual(['f1', 'f2']);
    expect(await ids({ outcomes: ['FAILURE', 'ABANDONED'] })).toEqual(['f2', 'f4', 'f6']);
    expect(await ids({ tagsAny: ['billing', 'flight'] })).toEqual(['f1', 'f3', 'f4', 'f5']);
    expect(await ids({ tagsAll: ['travel', 'flight'] })).toEqual(['f1', 'f5']);
    expect(await ids({ tagsAny: ['billing'], tagsAll: ['travel'] })).toEqual(['f5']);
    expect(await ids({ component: 'db' })).toEqual(['f2', 'f3']);
    expect(await ids({ since: '2024-07-01T12:03:00.000Z', until: '2024-07-01T12:07:00.000Z' })).toEqual([
      'f3',
      'f4',
      'f6',
      'f5',
    ]);
    expect(
      await ids({ initiatingAgentId: 'agent-a', outcomes: ['SUCCESS'], since: '2024-07-01T12:02:00.000Z' }),
    ).toEqual(['f7']);
  });

  it('pages newest first by default with stable cursors; ties on timestamp are ordered by id', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { experiences }: any = await app.run(ExperiencesDocument, { first: 3, after });
      expect(experiences.totalCount).toBe(7);
      seen.push(...experiences.edges.map((edge: { node: { experienceId: string } }) => edge.node.experienceId));
      pages++;
      if (!experiences.pageInfo.hasNextPage) break;
      after = experiences.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(['f7', 'f5', 'f6', 'f4', 'f3', 'f2', 'f1']);
    const ascending = await app.run(ExperiencesDocument, { orderBy: { direction: 'ASC' }, first: 4 });
    expect(
      ascending.experiences.edges.map((edge: { node: { experienceId: string } }) => edge.node.experienceId),
    ).toEqual(['f1', 'f2', 'f3', 'f4']);
  });

  it('first outside 1..500 and a foreign cursor are BAD_USER_INPUT', async () => {
    expect((await app.execute(ExperiencesDocument, { first: 0 })).errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
    expect((await app.execute(ExperiencesDocument, { after: 'garbage' })).errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'after',
    });
  });

  it('Experience.session resolves the sessions of a whole list with one read of the sessions collection', async () => {
    const query = `query { experiences(first: 50) { edges { node { experienceId session { sessionId sessionType } } } } }`;
    app.commands.reset();
    const { experiences } = await app.run(query);
    const sessions = Object.fromEntries(
      experiences.edges.map((edge: { node: { experienceId: string; session: { sessionId: string } | null } }) => [
        edge.node.experienceId,
        edge.node.session?.sessionId ?? null,
      ]),
    );
    expect(sessions).toEqual({
      f1: null,
      f2: null,
      f3: null,
      f4: null,
      f5: sessionAlice.session_id,
      f6: sessionAlice.session_id,
      f7: null,
    });
    const sessionReads = app.commands.events.filter((event) => event.command[event.commandName] === 'sessions');
    expect(sessionReads).toHaveLength(1);
    const { experience } = await app.run(ExperienceSessionDocument, { id: 'f5' });
    expect(experience!.session).toEqual({ sessionId: sessionAlice.session_id });
  });
});
