import { Aggregator } from 'mingo/aggregator';
import { Long } from 'bson';
import type { JournalOp } from './durability';
import { CommandError, ErrorCode, badValue } from './errors';
import { checkDeadline } from './deadline';
import { MINGO_OPTIONS, compileFilter, mingoError, withMongoRegexes } from './filter';
import { findDocuments, type FindSpec } from './query';
import { ID_INDEX, Store, duplicateKeyError, withIdFirst } from './store';
import { NotCompiled, compileProject } from './expressions';
import { compileUpdate, withEmbeddedFieldsAsPaths } from './update';
import { canonicalKey, isPlainObject, sameDocument, type Doc } from './values';
import { listSearchIndexes, vectorSearch, withScoreReferences, withoutScore } from './vector-search';

/** Stages that only exist on Atlas: mongod without Atlas Search rejects them the same way. */
const ATLAS_STAGES = new Set(['$search', '$searchMeta']);
/** Atlas stages the engine answers (vector-search.ts); each must open the pipeline. */
const SEARCH_STAGES = new Set(['$vectorSearch', '$listSearchIndexes']);
/** Stages mingo does not implement or that need server internals. */
const UNSUPPORTED_STAGES = new Set([
  '$changeStream',
  '$geoNear',
  '$collStats',
  '$indexStats',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$planCacheStats',
  '$shardedDataDistribution',
]);

/** Copies a document for mingo (which mutates its input in several stages), turning safe-range Longs into numbers so its arithmetic sees them. */
function forMingo(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forMingo);
  if (isPlainObject(value)) {
    const out: Doc = {};
    for (const key of Object.keys(value)) out[key] = forMingo(value[key]);
    return out;
  }
  if (value instanceof Long) {
    const n = value.toNumber();
    return Number.isSafeInteger(n) ? n : value;
  }
  return value;
}

// A $group that only counts never reads (or mutates) the documents it is given.
const isCountingGroup = (spec: unknown): boolean =>
  isPlainObject(spec) &&
  Object.entries(spec).every(([field, value]) =>
    field === '_id'
      ? !isPlainObject(value) || Object.keys(value).length === 0
      : isPlainObject(value) && Object.keys(value).length === 1 && typeof value.$sum === 'number',
  );

/**
 * A $project of top-level fields builds a new object per document and only assigns to it: mingo's expression
 * operators never write to their inputs, so the stored document is only read. Dotted keys are left out because
 * mingo's exclusion and merging then write into nested objects, which would still be the stored ones.
 */
const isTopLevelProject = (spec: unknown): boolean =>
  isPlainObject(spec) && Object.keys(spec).every((field) => !field.includes('.'));

/** True when some stage could write into the documents it is given, which are the stored ones. */
function mayMutateInput(stages: Doc[]): boolean {
  return stages.some((stage) => {
    const [name] = Object.keys(stage);
    if (['$match', '$sort', '$skip', '$limit', '$count'].includes(name)) return false;
    if (name === '$project') return !isTopLevelProject(stage.$project);
    return !(name === '$group' && isCountingGroup(stage.$group) && typeof stage.$group._id !== 'string');
  });
}

/** Per stored document (immutable, so the answer never changes): whether it holds an int64 that mingo must see as a number. */
const holdsLong = new WeakMap<Doc, boolean>();

function containsLong(value: unknown): boolean {
  if (value instanceof Long) return true;
  if (Array.isArray(value)) return value.some(containsLong);
  if (isPlainObject(value)) {
    for (const key in value) if (containsLong(value[key])) return true;
  }
  return false;
}

function storedHoldsLong(doc: Doc): boolean {
  let holds = holdsLong.get(doc);
  if (holds === undefined) holdsLong.set(doc, (holds = containsLong(doc)));
  return holds;
}

function stageName(stage: unknown, index: number): string {
  if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
    throw new CommandError(
      40323,
      `A pipeline stage specification object must contain exactly one field (stage ${index}).`,
    );
  }
  const [name] = Object.keys(stage);
  if (ATLAS_STAGES.has(name)) {
    throw new CommandError(6047401, `${name} stage is only allowed on MongoDB Atlas`);
  }
  if (UNSUPPORTED_STAGES.has(name)) {
    throw new CommandError(40324, `Unrecognized pipeline stage name: '${name}' (not supported by the embedded engine)`);
  }
  return name;
}

interface Target {
  db: string;
  coll: string;
}

function outputTarget(db: string, spec: unknown, stage: '$out' | '$merge'): Target {
  if (typeof spec === 'string') return { db, coll: spec };
  if (isPlainObject(spec)) {
    const into = stage === '$merge' ? spec.into : spec;
    if (typeof into === 'string') return { db, coll: into };
    if (isPlainObject(into) && typeof into.coll === 'string')
      return { db: typeof into.db === 'string' ? into.db : db, coll: into.coll };
  }
  throw badValue(`${stage} requires a collection name`);
}

/**
 * Runs an aggregation pipeline. A leading $match/$sort/$skip/$limit is answered by the engine's own planner
 * (so `_id` and index lookups apply); the rest runs in mingo. `$out` and `$merge` write into the store
 * (their journal ops are appended to `ops`) and the pipeline then returns no documents, as in mongod.
 */
export function runAggregate(
  store: Store,
  db: string,
  collection: string | undefined,
  pipeline: unknown[],
  ops: JournalOp[],
  variables: unknown,
  collation?: Doc,
): Doc[] {
  const stages = pipeline.map((stage, index) => {
    const name = stageName(stage, index);
    if (index > 0 && SEARCH_STAGES.has(name))
      throw new CommandError(40602, `${name} is only valid as the first stage in a pipeline`);
    return stage as Doc;
  });
  const first = stages[0] ? Object.keys(stages[0])[0] : undefined;
  if (first !== undefined && SEARCH_STAGES.has(first)) {
    if (collation) checkCollatedPipeline(stages.slice(1), collation);
    const source = collection === undefined ? undefined : store.collection(db, collection);
    if (collection === undefined) throw badValue(`${first} must be run against a collection`);
    const found =
      first === '$vectorSearch'
        ? vectorSearch(source, stages[0].$vectorSearch)
        : listSearchIndexes(source, stages[0][first]);
    const rest = withScoreReferences(stages.slice(1)) as Doc[];
    if (rest.some((stage) => '$out' in stage || '$merge' in stage))
      throw new CommandError(
        ErrorCode.NotImplemented,
        `$out and $merge after ${first} are not supported by the embedded engine`,
      );
    return withoutScore(rest.length ? runStages(store, db, rest, found, variables, collation) : found);
  }
  if (collation) checkCollatedPipeline(stages, collation);
  let output: { stage: '$out' | '$merge'; spec: unknown } | undefined;
  const last = stages[stages.length - 1];
  if (last && ('$out' in last || '$merge' in last)) {
    output = '$out' in last ? { stage: '$out', spec: last.$out } : { stage: '$merge', spec: last.$merge };
    stages.pop();
  }
  for (const [index, stage] of stages.entries()) {
    if ('$out' in stage || '$merge' in stage)
      throw new CommandError(
        40601,
        `${Object.keys(stage)[0]} can only be the final stage in the pipeline (stage ${index})`,
      );
  }

  // Fold the leading $match/$sort/$skip/$limit into one planned find.
  const spec: FindSpec = { variables: isPlainObject(variables) ? variables : undefined, collation };
  let at = 0;
  if (stages[at] && '$match' in stages[at] && isPlainObject(stages[at].$match)) spec.filter = stages[at++].$match;
  if (stages[at] && '$sort' in stages[at] && isPlainObject(stages[at].$sort)) spec.sort = stages[at++].$sort;
  while (stages[at] && ('$skip' in stages[at] || '$limit' in stages[at]) && spec.limit === undefined) {
    const stage = stages[at++];
    if ('$skip' in stage) spec.skip = (spec.skip ?? 0) + Number(stage.$skip);
    else spec.limit = Number(stage.$limit);
  }
  let rest = stages.slice(at);
  let input: Doc[] = collection === undefined ? [] : findDocuments(store.collection(db, collection), spec);
  // Leading $project stages of the forms compileProject knows run as closures; the rest (or all, when a document
  // has a value they leave to mingo) runs in mingo.
  const projections: Array<(doc: Doc) => Doc> = [];
  for (const stage of rest) {
    const projection = '$project' in stage ? compileProject(stage.$project) : undefined;
    if (!projection) break;
    projections.push(projection);
  }
  if (projections.length) {
    try {
      input = input.map((doc) => projections.reduce((projected, project) => project(projected), doc));
      rest = rest.slice(projections.length);
    } catch (error) {
      if (!(error instanceof NotCompiled)) throw error;
    }
  }
  const results = rest.length ? runStages(store, db, rest, input, variables, collation) : input;
  if (!output) return results;
  const target = outputTarget(db, output.spec, output.stage);
  if (output.stage === '$out') writeOut(store, target, results, ops);
  else merge(store, target, output.spec as Doc, results, ops);
  return [];
}

/** Runs `stages` over `input` in mingo. */
function runStages(
  store: Store,
  db: string,
  stages: Doc[],
  input: Doc[],
  variables: unknown,
  collation: Doc | undefined,
): Doc[] {
  if (mayMutateInput(stages)) input = input.map((doc) => forMingo(doc) as Doc);
  else if (stages.some((stage) => '$project' in stage))
    input = input.map((doc) => (storedHoldsLong(doc) ? (forMingo(doc) as Doc) : doc));
  try {
    const aggregator = new Aggregator(withMongoRegexes(stages.map(withEmbeddedFieldsAsPaths)), {
      ...MINGO_OPTIONS,
      variables: isPlainObject(variables) ? variables : undefined,
      collation: collation as never,
      collectionResolver: (name: string) =>
        store.collection(db, name)
          ? [...store.collection(db, name)!.docs.values()].map((doc) => forMingo(doc) as Doc)
          : [],
    });
    return aggregator.run(paced(input)) as Doc[];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknownStage = /unregistered pipeline operator (\$\w+)/.exec(message);
    if (unknownStage) throw new CommandError(40324, `Unrecognized pipeline stage name: '${unknownStage[1]}'`);
    throw mingoError(error);
  }
}

/** The pipeline's input, stopping when the command's maxTimeMS is up. */
function* paced(docs: Doc[]): Generator<Doc> {
  for (const doc of docs) {
    checkDeadline();
    yield doc;
  }
}

/** Stages that honour a collation here (their filters through compileFilter, $sort through mingo's collator). */
const COLLATED_STAGES = new Set(['$match', '$sort', '$skip', '$limit', '$count']);

/** A `$group` that compares nothing: one constant group of `{$sum: <number>}` counts (countDocuments' own). */
function countsOnly(group: unknown): boolean {
  if (!isPlainObject(group)) return false;
  const { _id: id, ...fields } = group;
  const constant = id === null || typeof id === 'number' || (typeof id === 'string' && !id.startsWith('$'));
  return (
    constant &&
    Object.values(fields).every(
      (field) => isPlainObject(field) && Object.keys(field).length === 1 && typeof field.$sum === 'number',
    )
  );
}

/** Refuses (238) a pipeline that would ignore a non-simple collation somewhere ($group keys, expressions...). */
function checkCollatedPipeline(stages: Doc[], collation: Doc): void {
  for (const stage of stages) {
    const name = Object.keys(stage)[0];
    if (name === '$group' && countsOnly(stage.$group)) continue;
    if (!COLLATED_STAGES.has(name))
      throw new CommandError(
        ErrorCode.NotImplemented,
        `${name} with a non-simple collation is not supported by the embedded engine`,
      );
    if (name === '$match') compileFilter(stage.$match, undefined, collation);
  }
}

/** $out: the target's documents are replaced by the results; its indexes stay. */
function writeOut(store: Store, target: Target, results: Doc[], ops: JournalOp[]): void {
  const collection = store.ensureCollection(target.db, target.coll, ops);
  const previous = [...collection.docs.values()];
  const mark = ops.length;
  for (const doc of previous) collection.remove(doc, ops);
  try {
    for (const doc of results) collection.insert(withIdFirst(doc), ops);
  } catch (error) {
    // mongod builds $out in a temporary collection: a failure leaves the target as it was.
    for (const doc of [...collection.docs.values()]) collection.remove(doc, null);
    for (const doc of previous) collection.insert(doc, null);
    ops.length = mark;
    throw error;
  }
}

function merge(store: Store, target: Target, spec: Doc, results: Doc[], ops: JournalOp[]): void {
  const on = spec.on === undefined ? ['_id'] : Array.isArray(spec.on) ? (spec.on as string[]) : [String(spec.on)];
  const whenMatched = spec.whenMatched ?? 'merge';
  const whenNotMatched = spec.whenNotMatched ?? 'insert';
  const collection = store.ensureCollection(target.db, target.coll, ops);
  let onIndex = ID_INDEX;
  if (!(on.length === 1 && on[0] === '_id')) {
    const covering = [...collection.indexes.values()].find(
      (index) => index.unique && index.fields.length === on.length && on.every((field) => index.fields.includes(field)),
    );
    if (!covering) throw new CommandError(51183, 'Cannot find index to verify that join fields will be unique');
    onIndex = covering.spec;
  }
  const pipelineUpdate = Array.isArray(whenMatched) ? compileUpdate(whenMatched) : undefined;
  for (const result of results) {
    const filter: Doc = {};
    for (const field of on) filter[field] = result[field] ?? null;
    const [existing] = findDocuments(collection, { filter, limit: 1 });
    if (!existing) {
      if (whenNotMatched === 'discard') continue;
      if (whenNotMatched === 'fail')
        throw new CommandError(
          13113,
          `$merge could not find a matching document in the target collection for at least one document in the source collection`,
        );
      collection.insert(withIdFirst(result), ops);
      continue;
    }
    let next: Doc;
    if (pipelineUpdate) next = pipelineUpdate.apply(existing, { isInsert: false });
    else if (whenMatched === 'keepExisting') continue;
    // mongod inserts for whenMatched: 'fail', so the error is the unique index's own duplicate key error.
    else if (whenMatched === 'fail')
      throw duplicateKeyError(
        `${target.db}.${target.coll}`,
        onIndex,
        Object.keys(onIndex.key).map((field) => filter[field]),
      );
    else if (whenMatched === 'replace') next = { ...result, _id: existing._id };
    else next = { ...existing, ...result, _id: existing._id };
    if (canonicalKey(next._id) !== canonicalKey(existing._id)) next._id = existing._id;
    if (!sameDocument(next, existing))
      collection.replace(existing, next, ops, whenMatched === 'replace' ? 'replace' : 'update');
  }
}
