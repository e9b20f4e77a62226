import { ObjectId } from 'mongodb';
import {
  buildVectorSearchPipeline,
  cosineFromAtlasScore,
  ensureVectorSearchIndex,
  toVectorSearchFilter,
  vectorSearchIndexDefinition,
  vectorSearchIndexName,
} from '../../src/search/atlas';
import type { SpaceDefinition } from '../../src/search/space';
import { openTestDatabase } from '../support/db';
import { testTarget } from '../support/target';

const SPACE: SpaceDefinition = {
  name: 'experiences.primary_goal_description',
  collection: 'eat_agent_experiences',
  idField: 'experience_id',
  vectorPath: 'embeddings.primary_goal_description_embedding',
  textPaths: ['primary_goal_description'],
  filterFields: ['initiating_agent_id', 'final_outcome', 'tags', 'timestamp', 'experience_id'],
};

describe('Atlas Vector Search: index definitions', () => {
  it('names the index after the space with only letters, digits, _ and -', () => {
    expect(vectorSearchIndexName(SPACE)).toBe('hindsight_experiences_primary_goal_description');
  });

  it('declares the vector (cosine, embedder dimensions) and the id and filter fields as filter fields', () => {
    expect(vectorSearchIndexDefinition(SPACE, 384)).toEqual({
      fields: [
        {
          type: 'vector',
          path: 'embeddings.primary_goal_description_embedding',
          numDimensions: 384,
          similarity: 'cosine',
        },
        { type: 'filter', path: 'experience_id' },
        { type: 'filter', path: 'initiating_agent_id' },
        { type: 'filter', path: 'final_outcome' },
        { type: 'filter', path: 'tags' },
        { type: 'filter', path: 'timestamp' },
      ],
    });
    expect(vectorSearchIndexDefinition(SPACE, 1536, []).fields).toEqual([
      { type: 'vector', path: SPACE.vectorPath, numDimensions: 1536, similarity: 'cosine' },
      { type: 'filter', path: 'experience_id' },
    ]);
  });
});

describe('Atlas Vector Search: query pipeline', () => {
  const base = {
    index: 'hindsight_x',
    path: 'embeddings.v',
    queryVector: Float32Array.of(0.5, -0.25),
    idField: 'experience_id',
  };

  it('builds $vectorSearch (ANN with candidates and pre-filter) then projects the id and vectorSearchScore', () => {
    const filter = { final_outcome: { $eq: 'success' } };
    expect(buildVectorSearchPipeline({ ...base, numCandidates: 200, limit: 10, filter })).toEqual([
      {
        $vectorSearch: {
          index: 'hindsight_x',
          path: 'embeddings.v',
          queryVector: [0.5, -0.25],
          numCandidates: 200,
          limit: 10,
          filter,
        },
      },
      { $project: { _id: 0, experience_id: 1, score: { $meta: 'vectorSearchScore' } } },
    ]);
  });

  it('builds exact (ENN) search without numCandidates, omits an empty filter, and keeps _id when it is the id', () => {
    const [stage, project] = buildVectorSearchPipeline({
      ...base,
      idField: '_id',
      numCandidates: 0,
      limit: 5,
      exact: true,
      filter: {},
    });
    expect(stage).toEqual({
      $vectorSearch: { index: 'hindsight_x', path: 'embeddings.v', queryVector: [0.5, -0.25], limit: 5, exact: true },
    });
    expect(project).toEqual({ $project: { _id: 1, score: { $meta: 'vectorSearchScore' } } });
  });

  it('rejects numCandidates below the limit or above 10,000, and a limit below 1', () => {
    expect(() => buildVectorSearchPipeline({ ...base, numCandidates: 5, limit: 10 })).toThrow(/numCandidates/);
    expect(() => buildVectorSearchPipeline({ ...base, numCandidates: 10_001, limit: 10 })).toThrow(/numCandidates/);
    expect(() => buildVectorSearchPipeline({ ...base, numCandidates: 10, limit: 0 })).toThrow(/limit/);
  });

  it('turns the cosine vectorSearchScore ((1 + cos) / 2) back into a cosine', () => {
    expect(cosineFromAtlasScore(1)).toBe(1);
    expect(cosineFromAtlasScore(0.5)).toBe(0);
    expect(cosineFromAtlasScore(0.25)).toBe(-0.5);
  });
});

describe('Atlas Vector Search: pre-filters', () => {
  const fields = new Set([
    'experience_id',
    'initiating_agent_id',
    'final_outcome',
    'tags',
    'timestamp',
    'involved_components',
  ]);

  it('rewrites the filters experiences build into the operators $vectorSearch accepts', () => {
    const since = new Date('2024-07-01T00:00:00Z');
    const until = new Date('2024-08-01T00:00:00Z');
    const filter = {
      initiating_agent_id: 'agent_booking_assistant_v1',
      final_outcome: { $in: ['success', 'partial_success'] },
      $and: [{ tags: { $in: ['flight_booking'] } }, { tags: { $all: ['international', 'british_airways'] } }],
      timestamp: { $gte: since, $lt: until },
    };
    expect(toVectorSearchFilter(filter, fields)).toEqual({
      $and: [
        { initiating_agent_id: { $eq: 'agent_booking_assistant_v1' } },
        { final_outcome: { $in: ['success', 'partial_success'] } },
        {
          $and: [
            { tags: { $in: ['flight_booking'] } },
            { $and: [{ tags: { $eq: 'international' } }, { tags: { $eq: 'british_airways' } }] },
          ],
        },
        { timestamp: { $gte: since } },
        { timestamp: { $lt: until } },
      ],
    });
  });

  it('keeps a single clause unwrapped and accepts $ne, $nin, $exists, $not, $or and ObjectId values', () => {
    expect(toVectorSearchFilter({ experience_id: { $ne: 'a' } }, fields)).toEqual({ experience_id: { $ne: 'a' } });
    const id = new ObjectId();
    expect(
      toVectorSearchFilter(
        { $or: [{ tags: { $nin: ['x'] } }, { final_outcome: { $exists: false } }, { experience_id: id }] },
        fields,
      ),
    ).toEqual({
      $or: [{ tags: { $nin: ['x'] } }, { final_outcome: { $exists: false } }, { experience_id: { $eq: id } }],
    });
    expect(toVectorSearchFilter({ final_outcome: { $not: { $eq: 'failure' } } }, fields)).toEqual({
      final_outcome: { $not: { $eq: 'failure' } },
    });
  });

  it('gives null for what Atlas cannot pre-filter: undeclared fields, $regex, $elemMatch, objects, empty $and', () => {
    expect(toVectorSearchFilter({ workflow_id: 'w' }, fields)).toBeNull();
    expect(toVectorSearchFilter({ final_outcome: { $regex: '^succ' } }, fields)).toBeNull();
    expect(toVectorSearchFilter({ tags: { $elemMatch: { $eq: 'x' } } }, fields)).toBeNull();
    expect(toVectorSearchFilter({ final_outcome: { nested: 1 } }, fields)).toBeNull();
    expect(toVectorSearchFilter({ $and: [] }, fields)).toBeNull();
    expect(toVectorSearchFilter({ $where: 'true' }, fields)).toBeNull();
  });
});

// mongod has no search indexes (Atlas and the embedded engine do).
(testTarget() === 'mongod' ? describe.skip : describe)('Atlas Vector Search: the index at startup', () => {
  it('is created once when processes start together, and each finds it made', async () => {
    const { db, close } = await openTestDatabase();
    try {
      // Connections open for both calls: neither waits for one while the other lists and creates.
      await Promise.all([db.command({ ping: 1 }), db.command({ ping: 1 })]);
      // Both list no index, then both create it: the second is told it exists.
      await Promise.all([ensureVectorSearchIndex(db, SPACE, 8), ensureVectorSearchIndex(db, SPACE, 8)]);
      const indexes = await db.collection(SPACE.collection).listSearchIndexes().toArray();
      expect(indexes.map((index) => index.name)).toEqual([vectorSearchIndexName(SPACE)]);
    } finally {
      await close();
    }
  });
});
