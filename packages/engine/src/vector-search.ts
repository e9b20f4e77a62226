import { Binary, ObjectId, type Document } from 'bson';
import { Index, MetricKind, ScalarKind } from 'usearch';
import type { JournalOp, SearchIndexSpec } from './durability';
import { CommandError, ErrorCode, badValue, failedToParse } from './errors';
import { compileFilter } from './filter';
import type { Collection, Store } from './store';
import { isPlainObject, ownField, type Doc } from './values';

/**
 * Atlas Vector Search as Atlas documents it: `createSearchIndexes`, `updateSearchIndex`, `dropSearchIndex`, the
 * `$listSearchIndexes` stage and the `$vectorSearch` stage. Index definitions are journaled with the collection;
 * the vectors are read from the stored documents, exactly for small collections and through a usearch HNSW graph
 * (built on first use, kept in step with the collection's writes) above {@link EXACT_BELOW}. ANN candidates are
 * re-scored exactly, so scores are Atlas's: cosine (1 + cos) / 2, euclidean 1 / (1 + d²), dotProduct (1 + dot) / 2.
 */

/** Atlas never considers more candidates than this. */
export const MAX_CANDIDATES = 10_000;
/** Below this many indexed vectors an exact scan costs less than keeping a graph. */
export const EXACT_BELOW = 1_000;
/** Field the score rides on through the later stages, for `{ $meta: 'vectorSearchScore' }`. */
const SCORE_FIELD = '__vectorSearchScore';

type Similarity = 'cosine' | 'euclidean' | 'dotProduct';
interface VectorField {
  path: string;
  numDimensions: number;
  similarity: Similarity;
}
interface ParsedDefinition {
  vectors: VectorField[];
  filters: Set<string>;
}

const SIMILARITIES = new Set<string>(['cosine', 'euclidean', 'dotProduct']);
const METRICS: Record<Similarity, MetricKind> = {
  cosine: MetricKind.Cos,
  euclidean: MetricKind.L2sq,
  dotProduct: MetricKind.IP,
};

/** Checks a `vectorSearch` index definition; throws BadValue naming the first wrong field. */
function parseDefinition(definition: unknown): ParsedDefinition {
  if (!isPlainObject(definition) || !Array.isArray(definition.fields) || !definition.fields.length)
    throw badValue('"definition.fields" must be a non-empty array');
  const vectors: VectorField[] = [];
  const filters = new Set<string>();
  definition.fields.forEach((field: unknown, i) => {
    const at = `"definition.fields[${i}]`;
    if (!isPlainObject(field) || typeof field.path !== 'string' || !field.path)
      throw badValue(`${at}.path" must be a non-empty string`);
    if (field.type === 'filter') filters.add(field.path);
    else if (field.type === 'vector') {
      const dims = field.numDimensions;
      if (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > 8192)
        throw badValue(`${at}.numDimensions" must be an integer from 1 to 8192`);
      if (typeof field.similarity !== 'string' || !SIMILARITIES.has(field.similarity))
        throw badValue(`${at}.similarity" must be one of [cosine, euclidean, dotProduct]`);
      vectors.push({ path: field.path, numDimensions: dims, similarity: field.similarity as Similarity });
    } else throw badValue(`${at}.type" must be one of [vector, filter]`);
  });
  if (!vectors.length) throw badValue('"definition.fields" must contain a field of type vector');
  return { vectors, filters };
}

function existingCollection(store: Store, db: string, name: unknown, command: string): Collection {
  if (typeof name !== 'string' || !name) throw failedToParse(`${command} requires a collection name`);
  const collection = store.collection(db, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, `Collection '${db}.${name}' does not exist.`);
  return collection;
}

/** The index a command names by `name` or `id`. */
function namedIndex(collection: Collection, command: Document): SearchIndexSpec {
  const found = [...collection.searchIndexes.values()].find(
    (spec) =>
      (command.name !== undefined && spec.name === command.name) ||
      (command.id !== undefined && spec.id === command.id),
  );
  if (command.name === undefined && command.id === undefined) throw failedToParse('Either name or id is required');
  if (!found)
    throw new CommandError(ErrorCode.IndexNotFound, `Search index ${String(command.name ?? command.id)} not found`);
  return found;
}

export function createSearchIndexes(store: Store, db: string, command: Document, ops: JournalOp[]): Document {
  const collection = existingCollection(store, db, command.createSearchIndexes, 'createSearchIndexes');
  if (!Array.isArray(command.indexes) || !command.indexes.length)
    throw failedToParse('createSearchIndexes requires a non-empty array of indexes');
  const specs = command.indexes.map((raw: unknown): SearchIndexSpec => {
    if (!isPlainObject(raw)) throw failedToParse('Each search index must be an object');
    const name = raw.name ?? 'default';
    const type = raw.type ?? 'search';
    if (typeof name !== 'string' || !name) throw badValue('"name" must be a non-empty string');
    if (type !== 'vectorSearch')
      throw new CommandError(
        ErrorCode.NotImplemented,
        `search indexes of type '${String(type)}' are not supported by the embedded engine (only vectorSearch)`,
      );
    parseDefinition(raw.definition);
    if (collection.searchIndexes.has(name))
      throw new CommandError(68, `Duplicate Index: an index named ${name} already exists`);
    return {
      id: new ObjectId().toHexString(),
      name,
      type,
      definition: raw.definition as Doc,
      version: 0,
      createdAt: new Date(),
    };
  });
  for (const spec of specs) collection.putSearchIndex(spec, ops);
  return { indexesCreated: specs.map(({ id, name }) => ({ id, name })) };
}

export function updateSearchIndex(store: Store, db: string, command: Document, ops: JournalOp[]): Document {
  const collection = existingCollection(store, db, command.updateSearchIndex, 'updateSearchIndex');
  const spec = namedIndex(collection, command);
  parseDefinition(command.definition);
  collection.putSearchIndex(
    { ...spec, definition: command.definition as Doc, version: spec.version + 1, createdAt: new Date() },
    ops,
  );
  return {};
}

export function dropSearchIndex(store: Store, db: string, command: Document, ops: JournalOp[]): Document {
  const collection = existingCollection(store, db, command.dropSearchIndex, 'dropSearchIndex');
  collection.dropSearchIndex(namedIndex(collection, command).name, ops);
  return {};
}

/** `$listSearchIndexes: { name?, id? }`: every index is built at once, so READY and queryable. */
export function listSearchIndexes(collection: Collection | undefined, spec: unknown): Doc[] {
  if (!isPlainObject(spec)) throw failedToParse('$listSearchIndexes requires an object');
  return [...(collection?.searchIndexes.values() ?? [])]
    .filter(
      (index) =>
        (spec.name === undefined || spec.name === index.name) && (spec.id === undefined || spec.id === index.id),
    )
    .map((index) => ({
      id: index.id,
      name: index.name,
      type: index.type,
      status: 'READY',
      queryable: true,
      latestDefinitionVersion: { version: index.version, createdAt: index.createdAt },
      latestDefinition: index.definition,
    }));
}

// ---------- $vectorSearch ----------

interface VectorQuery {
  index: string;
  path: string;
  queryVector: Float32Array;
  limit: number;
  numCandidates: number;
  exact: boolean;
  filter?: Doc;
}

const STAGE_FIELDS = new Set(['index', 'path', 'queryVector', 'limit', 'numCandidates', 'exact', 'filter']);

function parseStage(spec: unknown): VectorQuery {
  if (!isPlainObject(spec)) throw failedToParse('"$vectorSearch" must be an object');
  for (const key of Object.keys(spec))
    if (!STAGE_FIELDS.has(key)) throw failedToParse(`"$vectorSearch.${key}" is not a recognized field`);
  const { index, path, queryVector, limit, numCandidates, exact = false, filter } = spec;
  for (const [name, value] of [
    ['index', index],
    ['path', path],
  ] as const)
    if (typeof value !== 'string' || !value)
      throw failedToParse(`"$vectorSearch.${name}" is required and must be a string`);
  if (!Array.isArray(queryVector) || !queryVector.length || !queryVector.every((x) => Number.isFinite(Number(x))))
    throw failedToParse('"$vectorSearch.queryVector" is required and must be an array of numbers');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
    throw failedToParse('"$vectorSearch.limit" is required and must be a positive integer');
  if (typeof exact !== 'boolean') throw failedToParse('"$vectorSearch.exact" must be a boolean');
  if (!exact) {
    if (typeof numCandidates !== 'number' || !Number.isInteger(numCandidates))
      throw failedToParse('"$vectorSearch.numCandidates" is required when exact is false');
    if (numCandidates < limit || numCandidates > MAX_CANDIDATES)
      throw badValue(`"$vectorSearch.numCandidates" must be within bounds [limit, ${MAX_CANDIDATES}]`);
  } else if (numCandidates !== undefined) {
    throw failedToParse('"$vectorSearch.numCandidates" must not be set when exact is true');
  }
  if (filter !== undefined && !isPlainObject(filter)) throw failedToParse('"$vectorSearch.filter" must be an object');
  return {
    index: index as string,
    path: path as string,
    queryVector: Float32Array.from(queryVector as number[], Number),
    limit,
    numCandidates: exact ? limit : (numCandidates as number),
    exact,
    filter,
  };
}

const COMPARISONS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$not']);
const LOGICAL = new Set(['$and', '$or', '$nor']);

/** The MQL subset Atlas pre-filters with, on the index's filter fields only. */
function checkFilter(filter: Doc, fields: ReadonlySet<string>): void {
  for (const [key, value] of Object.entries(filter)) {
    if (LOGICAL.has(key)) {
      if (!Array.isArray(value) || !value.length) throw badValue(`"${key}" must be a non-empty array`);
      for (const part of value) {
        if (!isPlainObject(part)) throw badValue(`"${key}" must hold objects`);
        checkFilter(part, fields);
      }
    } else if (key.startsWith('$')) {
      throw badValue(`Operator "${key}" is not supported in a $vectorSearch filter`);
    } else if (!fields.has(key)) {
      throw badValue(`Path '${key}' needs to be indexed as filter`);
    } else if (isPlainObject(value) && Object.keys(value).some((op) => op.startsWith('$'))) {
      for (const op of Object.keys(value))
        if (!COMPARISONS.has(op)) throw badValue(`Operator "${op}" is not supported in a $vectorSearch filter`);
    }
  }
}

/** The value at a dotted path through subdocuments (a vector is never inside an array of subdocuments). */
function readPath(doc: Doc, path: string): unknown {
  let current: unknown = doc;
  for (const segment of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = ownField(current, segment);
  }
  return current;
}

/** A stored vector of `dims` numbers (array or BSON float32 vector), else null: Atlas skips such documents. */
function storedVector(value: unknown, dims: number): Float32Array | null {
  if (value instanceof Binary) {
    if (value.sub_type !== Binary.SUBTYPE_VECTOR || value.buffer[0] !== Binary.VECTOR_TYPE.Float32) return null;
    const vector = value.toFloat32Array();
    return vector.length === dims ? vector : null;
  }
  if (!Array.isArray(value) || value.length !== dims) return null;
  const vector = new Float32Array(dims);
  for (let i = 0; i < dims; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'number' || !Number.isFinite(item)) return null;
    vector[i] = item;
  }
  return vector;
}

function scorer(similarity: Similarity, query: Float32Array): (vector: Float32Array) => number {
  let queryNorm = 0;
  for (const x of query) queryNorm += x * x;
  queryNorm = Math.sqrt(queryNorm);
  return (vector) => {
    let dot = 0;
    let norm = 0;
    let distance = 0;
    for (let i = 0; i < query.length; i++) {
      dot += query[i] * vector[i];
      norm += vector[i] * vector[i];
      distance += (query[i] - vector[i]) ** 2;
    }
    if (similarity === 'euclidean') return 1 / (1 + distance);
    if (similarity === 'dotProduct') return (1 + dot) / 2;
    const denominator = queryNorm * Math.sqrt(norm);
    return denominator ? (1 + dot / denominator) / 2 : 0;
  };
}

/** The HNSW graph of one vector field of a collection, kept in step with the stored documents. */
interface Graph {
  index: Index;
  version: number;
  /** Per canonical `_id`: the stored document the graph holds the vector of, and its key. */
  entries: Map<string, { doc: Doc; key: bigint }>;
  ids: Map<bigint, string>;
  nextKey: bigint;
}

const graphs = new WeakMap<Collection, Map<string, Graph>>();

function graphOf(collection: Collection, field: VectorField): Graph {
  let byField = graphs.get(collection);
  if (!byField) graphs.set(collection, (byField = new Map()));
  const name = `${field.path}|${field.numDimensions}|${field.similarity}`;
  let graph = byField.get(name);
  if (!graph) {
    const index = new Index({
      dimensions: field.numDimensions,
      metric: METRICS[field.similarity],
      quantization: ScalarKind.F32,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 64,
      multi: false,
    });
    byField.set(name, (graph = { index, version: -1, entries: new Map(), ids: new Map(), nextKey: 0n }));
  }
  if (graph.version !== collection.version) sync(graph, collection, field);
  return graph;
}

/** Brings the graph up to the collection's documents: a write replaces a document object, so identity tells. */
function sync(graph: Graph, collection: Collection, field: VectorField): void {
  const keys: bigint[] = [];
  const vectors: Float32Array[] = [];
  const drop = (id: string) => {
    const entry = graph.entries.get(id)!;
    graph.index.remove(entry.key);
    graph.ids.delete(entry.key);
    graph.entries.delete(id);
  };
  for (const id of graph.entries.keys()) if (!collection.docs.has(id)) drop(id);
  for (const [id, doc] of collection.docs) {
    const entry = graph.entries.get(id);
    if (entry?.doc === doc) continue;
    if (entry) drop(id);
    const vector = storedVector(readPath(doc, field.path), field.numDimensions);
    if (!vector) continue;
    const key = graph.nextKey++;
    graph.entries.set(id, { doc, key });
    graph.ids.set(key, id);
    keys.push(key);
    vectors.push(vector);
  }
  if (keys.length) {
    const matrix = new Float32Array(keys.length * field.numDimensions);
    vectors.forEach((vector, i) => matrix.set(vector, i * field.numDimensions));
    graph.index.add(BigUint64Array.from(keys), matrix);
  }
  graph.version = collection.version;
}

/**
 * The documents `$vectorSearch` returns, best first, each a copy carrying its score for `$meta`. An index that does
 * not exist (or a path it does not index) gives no documents, as on Atlas.
 */
export function vectorSearch(collection: Collection | undefined, spec: unknown): Doc[] {
  const query = parseStage(spec);
  const index = collection?.searchIndexes.get(query.index);
  if (!collection || !index) return [];
  const { vectors, filters } = parseDefinition(index.definition);
  const field = vectors.find((vector) => vector.path === query.path);
  if (!field) throw badValue(`Path '${query.path}' needs to be indexed as vector`);
  if (query.queryVector.length !== field.numDimensions)
    throw badValue(
      `vector field is indexed with ${field.numDimensions} dimensions but queried with ${query.queryVector.length}`,
    );
  let passes: (doc: Doc) => boolean = () => true;
  if (query.filter && Object.keys(query.filter).length) {
    checkFilter(query.filter, filters);
    passes = compileFilter(query.filter);
  }
  const score = scorer(field.similarity, query.queryVector);
  const scored: Array<{ doc: Doc; score: number }> = [];
  const consider = (doc: Doc) => {
    if (!passes(doc)) return;
    const vector = storedVector(readPath(doc, field.path), field.numDimensions);
    if (vector) scored.push({ doc, score: score(vector) });
  };
  const exact = () => {
    scored.length = 0;
    for (const doc of collection.docs.values()) consider(doc);
  };
  if (query.exact || collection.docs.size < EXACT_BELOW) exact();
  else {
    const graph = graphOf(collection, field);
    const candidates = Math.min(query.numCandidates, graph.entries.size);
    // usearch refuses k = 0: no document has a vector at the path (e.g. a text field left empty everywhere).
    const found = candidates ? graph.index.search(query.queryVector, candidates, 0).keys : [];
    for (const key of found) {
      const id = graph.ids.get(key);
      const doc = id === undefined ? undefined : collection.docs.get(id);
      if (doc) consider(doc);
    }
    // Atlas filters during the walk: when the filter left too few candidates, the exact answer is the one it gives.
    if (scored.length < query.limit) exact();
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, query.limit).map(({ doc, score }) => ({ ...doc, [SCORE_FIELD]: score }));
}

/** Rewrites `{ $meta: 'vectorSearchScore' }` in later stages into a reference to the carried score. */
export function withScoreReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withScoreReferences);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '$meta' && value.$meta === 'vectorSearchScore') return `$${SCORE_FIELD}`;
  const out: Doc = {};
  for (const key of keys) out[key] = withScoreReferences(value[key]);
  return out;
}

/** Removes the carried score from the pipeline's output documents. */
export function withoutScore(docs: Doc[]): Doc[] {
  return docs.map((doc) => {
    if (!(SCORE_FIELD in doc)) return doc;
    const { [SCORE_FIELD]: _score, ...rest } = doc;
    return rest;
  });
}
