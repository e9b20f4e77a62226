import type { Collection, Db, Document } from 'mongodb';
import { fromStoredVector } from '../embeddings/vectors';
import { firstPassing, isEmptyFilter, type Restriction } from './filter';
import { readPath, type SpaceDefinition } from './space';
import type { VectorHit } from './types';
import { rowDot, unitVector } from './vector-store';

/**
 * Atlas Vector Search (VECTOR_SEARCH=atlas). Each space gets one `vectorSearch` index on its collection, created at
 * startup by {@link ensureVectorSearchIndex}:
 *
 *   { name: 'hindsight_<space name>', type: 'vectorSearch', definition: {
 *       fields: [ { type: 'vector', path: <vectorPath>, numDimensions: <embedder dimensions>, similarity: 'cosine' },
 *                 { type: 'filter', path: <idField> }, { type: 'filter', path: <each filterField> } ] } }
 *
 * Queries are `$vectorSearch` aggregations ({@link buildVectorSearchPipeline}). Atlas only pre-filters on fields
 * declared as `filter` fields and with a subset of MQL ({@link toVectorSearchFilter}); other filters are resolved
 * through MongoDB into an id list ({@link searchAtlas}). Vectors stay in MongoDB: nothing of them is held in process.
 */

/** Atlas `$vectorSearch` never considers more than this many candidates. */
export const ATLAS_MAX_CANDIDATES = 10_000;

/** Candidates per requested result for ANN queries (Atlas recommends 10–20× the limit). */
export const ATLAS_CANDIDATES_PER_RESULT = 20;

/** The Atlas search index name of a space: `hindsight_` + its name with characters other than letters, digits, `_` and `-` replaced by `_`. */
export function vectorSearchIndexName(space: Pick<SpaceDefinition, 'name'>): string {
  return `hindsight_${space.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * The `vectorSearch` index definition of a space: its vector (cosine similarity) and, as `filter` fields, its id
 * field and `filterFields` (defaults to the space's own), so searches can pre-filter on them.
 */
export function vectorSearchIndexDefinition(
  space: SpaceDefinition,
  dimensions: number,
  filterFields: readonly string[] = space.filterFields ?? [],
): Document {
  const filters = [...new Set([space.idField, ...filterFields])];
  return {
    fields: [
      { type: 'vector', path: space.vectorPath, numDimensions: dimensions, similarity: 'cosine' },
      ...filters.map((path) => ({ type: 'filter', path })),
    ],
  };
}

export interface VectorSearchPipelineOptions {
  /** Search index name ({@link vectorSearchIndexName}). */
  index: string;
  /** Path of the vector field. */
  path: string;
  queryVector: Float32Array | readonly number[];
  /** Candidates the ANN search considers (≤ 10,000, ≥ limit); ignored when `exact`. */
  numCandidates: number;
  limit: number;
  /** A pre-filter in the subset Atlas accepts ({@link toVectorSearchFilter}). */
  filter?: Document;
  /** Exact nearest neighbours (ENN) instead of ANN: every document that passes the filter is scored. */
  exact?: boolean;
  /** The id field projected with the score (default `_id`). */
  idField?: string;
}

/**
 * The `$vectorSearch` aggregation of one query: the search stage, then `{ $project: { <idField>: 1, score:
 * { $meta: 'vectorSearchScore' } } }`. For cosine similarity Atlas reports score = (1 + cosine) / 2, in [0, 1];
 * {@link cosineFromAtlasScore} turns it back.
 */
export function buildVectorSearchPipeline(options: VectorSearchPipelineOptions): Document[] {
  const { index, path, queryVector, numCandidates, limit, filter, exact = false, idField = '_id' } = options;
  if (!Number.isInteger(limit) || limit < 1) throw new Error('limit must be a positive integer');
  const stage: Document = { index, path, queryVector: Array.from(queryVector), limit };
  if (exact) stage.exact = true;
  else {
    if (!Number.isInteger(numCandidates) || numCandidates < limit || numCandidates > ATLAS_MAX_CANDIDATES) {
      throw new Error(`numCandidates must be an integer from limit (${limit}) to ${ATLAS_MAX_CANDIDATES}`);
    }
    stage.numCandidates = numCandidates;
  }
  if (filter && Object.keys(filter).length) stage.filter = filter;
  const projection: Document = idField === '_id' ? {} : { _id: 0 };
  projection[idField] = 1;
  projection.score = { $meta: 'vectorSearchScore' };
  return [{ $vectorSearch: stage }, { $project: projection }];
}

/** Cosine similarity from Atlas' cosine `vectorSearchScore` ((1 + cosine) / 2). */
export function cosineFromAtlasScore(score: number): number {
  return 2 * score - 1;
}

const COMPARISONS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists']);
const LOGICAL = new Set(['$and', '$or', '$nor']);

/**
 * Rewrites a MongoDB filter into the form `$vectorSearch` pre-filters with, or returns null when it cannot:
 * implicit equality becomes `$eq`, `$all: [a, b]` becomes `$and` of `$eq`s (Atlas matches an array field when an
 * element equals), `$not` is kept around comparisons; `$and`/`$or`/`$nor` recurse. Every field must be one of
 * `fields` (the index's filter fields) and every value a string, number, boolean, date, ObjectId or null.
 */
export function toVectorSearchFilter(filter: Document, fields: ReadonlySet<string>): Document | null {
  const clauses: Document[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (LOGICAL.has(key)) {
      if (!Array.isArray(value) || value.length === 0) return null;
      const parts = value.map((part: unknown) => (isPlainObject(part) ? toVectorSearchFilter(part, fields) : null));
      if (parts.some((part) => part === null)) return null;
      clauses.push({ [key]: parts });
    } else if (key.startsWith('$') || !fields.has(key)) {
      return null;
    } else {
      const condition = fieldCondition(key, value);
      if (!condition) return null;
      clauses.push(...condition);
    }
  }
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? clauses[0] : { $and: clauses };
}

function fieldCondition(field: string, value: unknown): Document[] | null {
  if (!isPlainObject(value) || !Object.keys(value).some((key) => key.startsWith('$'))) {
    return isFilterValue(value) ? [{ [field]: { $eq: value } }] : null;
  }
  const clauses: Document[] = [];
  for (const [operator, operand] of Object.entries(value)) {
    if (operator === '$all') {
      if (!Array.isArray(operand) || !operand.length || !operand.every(isFilterValue)) return null;
      clauses.push(...operand.map((item) => ({ [field]: { $eq: item } })));
    } else if (operator === '$not') {
      const inner = isPlainObject(operand) ? fieldCondition(field, operand) : null;
      if (!inner || inner.length !== 1) return null;
      clauses.push({ [field]: { $not: inner[0][field] } });
    } else if (!COMPARISONS.has(operator) || !isOperand(operator, operand)) {
      return null;
    } else {
      clauses.push({ [field]: { [operator]: operand } });
    }
  }
  return clauses;
}

function isOperand(operator: string, operand: unknown): boolean {
  if (operator === '$exists') return typeof operand === 'boolean';
  if (operator === '$in' || operator === '$nin') return Array.isArray(operand) && operand.every(isFilterValue);
  return isFilterValue(operand);
}

function isFilterValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (value instanceof Date) return true;
  return typeof value === 'object' && (value as { _bsontype?: string })._bsontype === 'ObjectId';
}

function isPlainObject(value: unknown): value is Document {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/**
 * Creates the space's `vectorSearch` index when missing, or updates its definition when it changed. Atlas builds
 * it asynchronously; queries return nothing for a space until its index is ready.
 */
export async function ensureVectorSearchIndex(db: Db, space: SpaceDefinition, dimensions: number): Promise<void> {
  const collection: Collection = db.collection(space.collection);
  const name = vectorSearchIndexName(space);
  const definition = vectorSearchIndexDefinition(space, dimensions);
  // Atlas creates search indexes on existing collections only.
  await db.createCollection(space.collection).catch((error: { code?: number }) => {
    if (error.code !== 48) throw error; // NamespaceExists
  });
  for (let attempt = 0; ; attempt++) {
    const [existing] = (await collection.listSearchIndexes(name).toArray()) as Array<{
      name: string;
      latestDefinition?: Document;
    }>;
    if (existing) {
      if (!sameFields(existing.latestDefinition, definition)) await collection.updateSearchIndex(name, definition);
      return;
    }
    try {
      await collection.createSearchIndexes([{ name, type: 'vectorSearch', definition }]);
      return;
    } catch (error) {
      // IndexAlreadyExists: a process starting meanwhile created it; it is checked as an existing one.
      if ((error as { code?: number }).code !== 68 || attempt > 0) throw error;
    }
  }
}

/** Compares two index definitions by their fields only (Atlas may add defaults and reorder keys). */
function sameFields(a: Document | undefined, b: Document): boolean {
  const canonical = (definition: Document | undefined) =>
    ((definition?.fields ?? []) as Document[])
      .map((field) => [field.type, field.path, field.numDimensions ?? '', field.similarity ?? ''].join('|'))
      .sort()
      .join('\n');
  return canonical(a) === canonical(b);
}

/** Resolves search filters on a space's collection (see filter.ts), shared with the in-process search. */
export interface FilterResolver {
  restrict(definition: SpaceDefinition, filter: Document | null | undefined): Promise<Restriction>;
}

/**
 * The `k` documents of the space's `collection` nearest to the unit `vector`, best first, among those that pass
 * `filter`: `$vectorSearch` with the filter as its pre-filter when Atlas can take it (ANN, retried as exact search
 * when it returned fewer than k), else with the ids that pass (exact search) or growing candidate lists checked
 * against the filter (`filters` resolves it). Once `signal` aborts, the search throws its reason.
 */
export async function searchAtlas(
  collection: Collection,
  definition: SpaceDefinition,
  vector: Float32Array,
  k: number,
  filter: Document | null | undefined,
  filters: FilterResolver,
  signal?: AbortSignal,
): Promise<VectorHit[]> {
  const run = async (limit: number, options: { filter?: Document; exact?: boolean }): Promise<VectorHit[]> => {
    const capped = Math.min(limit, ATLAS_MAX_CANDIDATES);
    const pipeline = buildVectorSearchPipeline({
      index: vectorSearchIndexName(definition),
      path: definition.vectorPath,
      queryVector: vector,
      numCandidates: Math.min(ATLAS_MAX_CANDIDATES, capped * ATLAS_CANDIDATES_PER_RESULT),
      limit: capped,
      idField: definition.idField,
      ...options,
    });
    // The signal also withdraws a command still waiting for a connection: searches queue there under load.
    const rows = await collection.aggregate(pipeline, { signal }).toArray();
    return rows.flatMap((row) => {
      const id = readPath(row, definition.idField);
      return typeof id === 'string' ? [{ id, score: cosineFromAtlasScore(Number(row.score)) }] : [];
    });
  };
  if (isEmptyFilter(filter)) return run(k, {});
  const translated = toVectorSearchFilter(filter!, new Set([definition.idField, ...(definition.filterFields ?? [])]));
  if (translated) {
    const hits = await run(k, { filter: translated });
    return hits.length < k ? run(k, { filter: translated, exact: true }) : hits;
  }
  const restriction = await filters.restrict(definition, filter);
  switch (restriction.kind) {
    case 'all':
      return run(k, {});
    case 'ids':
      return restriction.ids.size
        ? run(k, { filter: { [definition.idField]: { $in: [...restriction.ids] } }, exact: true })
        : [];
    case 'check':
      return firstPassing((n) => run(n, {}), k, restriction.passing);
  }
}

/**
 * The cosine similarity of the unit `vector` with each listed document's stored vector, in order (null for a document
 * without one of the same dimensions): read from the documents, since atlas mode holds no vectors in process.
 */
export async function storedVectorScores(
  collection: Collection,
  definition: SpaceDefinition,
  vector: Float32Array,
  ids: readonly string[],
): Promise<Array<number | null>> {
  const found = new Map<string, number>();
  const cursor = collection.find(
    { [definition.idField]: { $in: [...ids] } },
    { projection: { _id: 0, [definition.idField]: 1, [definition.vectorPath]: 1 } },
  );
  for await (const document of cursor) {
    const stored = fromStoredVector(readPath(document, definition.vectorPath));
    const other = stored && stored.length === vector.length ? unitVector(stored) : null;
    if (other) found.set(String(readPath(document, definition.idField)), rowDot(other, 0, vector));
  }
  return ids.map((id) => found.get(id) ?? null);
}
