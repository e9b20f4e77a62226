import { Aggregator } from 'mingo/aggregator';
import { evalExpr } from 'mingo/core';
import { Decimal128, Int32, Long, Timestamp } from 'bson';
import { CommandError, ErrorCode, badValue, failedToParse, typeMismatch } from './errors';
import { NotCompiled, compileUpdateExpression } from './expressions';
import { checkPipelineLength } from './limits';
import { positionalIndex } from './projection';
import { wideArithmetic } from './wide-numbers';
import { MINGO_COMPUTE, MINGO_OPTIONS, compileFilter, mingoError } from './filter';
import {
  bsonTypeName,
  canonicalKey,
  compareValues,
  deepCopy,
  formatValue,
  isNumeric,
  isPlainObject,
  ownField,
  toNumber,
  valuesEqual,
  type Doc,
} from './values';

/** What an update needs to know about the document it applies to. */
export interface UpdateContext {
  /** The query filter, for the positional `$`. */
  filter?: Doc;
  /** True when the document is being created by an upsert ($setOnInsert applies). */
  isInsert: boolean;
}

/** A validated update: `apply` returns the new version of a document and never mutates the one it is given. */
export interface CompiledUpdate {
  kind: 'replacement' | 'operators' | 'pipeline';
  apply(doc: Doc, context: UpdateContext): Doc;
}

const OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$currentDate',
  '$push',
  '$addToSet',
  '$pop',
  '$pull',
  '$pullAll',
  '$setOnInsert',
  '$bit',
]);
const PIPELINE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

interface Operation {
  op: string;
  path: string;
  segments: string[];
  value: unknown;
}

/**
 * Compiles an update document, replacement or pipeline, rejecting what mongod rejects before touching any document.
 * `variables` (the command's `let`, see letVariables) are visible to a pipeline's expressions.
 */
export function compileUpdate(update: unknown, arrayFilters?: unknown, variables?: Doc): CompiledUpdate {
  if (Array.isArray(update)) return compilePipeline(update, arrayFilters, variables);
  if (!isPlainObject(update)) throw failedToParse('Update argument must be either an object or an array');
  const keys = Object.keys(update);
  if (!keys.some((key) => key.startsWith('$'))) {
    if (arrayFilters !== undefined && (!Array.isArray(arrayFilters) || arrayFilters.length)) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        'arrayFilters may not be specified for replacement-style updates',
      );
    }
    return { kind: 'replacement', apply: (doc) => replace(doc, update) };
  }
  return compileOperators(update, arrayFilters);
}

function replace(doc: Doc, replacement: Doc): Doc {
  if ('_id' in replacement && doc._id !== undefined && canonicalKey(replacement._id) !== canonicalKey(doc._id)) {
    throw immutableId(replacement._id);
  }
  const out: Doc = { _id: doc._id ?? replacement._id };
  for (const key of Object.keys(replacement)) if (key !== '_id') out[key] = replacement[key];
  if (out._id === undefined) delete out._id;
  return out;
}

const immutableId = (value: unknown): CommandError =>
  new CommandError(
    ErrorCode.ImmutableField,
    `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(value)}`,
  );

/**
 * A `$set`/`$addFields` stage with each embedded document literal (`{ run: { a: <expr> } }`) written as the paths it
 * sets (`run.a`): mongod merges such a document into the field's stored one, keeping its other fields, where the
 * compiled path and mingo would replace it. A document with an operator key is an expression and stays whole.
 */
export function withEmbeddedFieldsAsPaths(stage: Doc): Doc {
  const name = Object.keys(stage)[0];
  const fields = stage[name];
  if ((name !== '$set' && name !== '$addFields') || !isPlainObject(fields)) return stage;
  const paths: Doc = {};
  const add = (prefix: string, value: unknown) => {
    const keys = isPlainObject(value) ? Object.keys(value) : [];
    if (keys.length && !keys.some((key) => key.startsWith('$'))) {
      for (const key of keys) add(`${prefix}.${key}`, (value as Doc)[key]);
    } else paths[prefix] = value;
  };
  for (const [field, value] of Object.entries(fields)) add(field, value);
  return { [name]: paths };
}

function compilePipeline(stages: unknown[], arrayFilters: unknown, variables: Doc | undefined): CompiledUpdate {
  checkPipelineLength(stages);
  if (arrayFilters !== undefined && (!Array.isArray(arrayFilters) || arrayFilters.length)) {
    throw new CommandError(ErrorCode.FailedToParse, 'arrayFilters may not be specified for pipeline-style updates');
  }
  for (const stage of stages) {
    const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
    if (!name || !PIPELINE_STAGES.has(name)) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `${name ?? 'A non-object'} is not allowed to be used within an update`,
      );
    }
  }
  stages = (stages as Doc[]).map(withEmbeddedFieldsAsPaths);
  let aggregator: Aggregator;
  try {
    aggregator = new Aggregator(stages as Doc[], variables ? { ...MINGO_OPTIONS, variables } : MINGO_COMPUTE);
  } catch (error) {
    throw mingoError(error);
  }
  // The copy-on-write path evaluates with the shared options, which carry no variables.
  const setStages = variables ? undefined : compileSetStages(stages as Doc[]);
  const viaMingo = (doc: Doc): Doc | undefined => aggregator.run([deepCopy(doc)])[0] as Doc | undefined;
  return {
    kind: 'pipeline',
    apply(doc) {
      let result: Doc | undefined;
      try {
        result = (setStages && applySetStages(doc, setStages)) || viaMingo(doc);
      } catch (error) {
        throw mingoError(error);
      }
      if (!result) throw badValue('The update pipeline produced no document');
      // A pipeline that drops `_id` ($replaceRoot, $project, $unset) keeps the document's own, as in mongod.
      if (doc._id !== undefined && result._id === undefined) result = { _id: doc._id, ...result };
      if (doc._id !== undefined && canonicalKey(result._id) !== canonicalKey(doc._id)) {
        throw immutableId(result._id);
      }
      return result;
    },
  };
}

/** A `$set`/`$addFields` stage: each field's path and the expression computing its value. */
interface SetStage {
  paths: string[][];
  /** The expressions keyed by field position, evaluated together as one document expression. */
  values: Doc;
  /** The same as closures (see expressions.ts), when every operator in them is compiled. */
  compiled?: (doc: Doc) => unknown;
}

/**
 * The stages of a pipeline made only of `$set`/`$addFields` with plain field paths, for `applySetStages`;
 * undefined for any other pipeline (mingo runs it).
 */
function compileSetStages(stages: Doc[]): SetStage[] | undefined {
  const compiled: SetStage[] = [];
  for (const stage of stages) {
    const name = Object.keys(stage)[0];
    const fields = stage[name];
    if ((name !== '$set' && name !== '$addFields') || !isPlainObject(fields)) return undefined;
    const entries = Object.entries(fields);
    if (!entries.length) return undefined;
    const paths: string[][] = [];
    const values: Doc = {};
    for (const [field, expression] of entries) {
      const segments = field.split('.');
      if (segments.some((segment) => !segment || segment.startsWith('$') || segment === '__proto__')) return undefined;
      values[`f${paths.length}`] = expression;
      paths.push(segments);
    }
    // Overlapping paths (`a` and `a.b`) keep mingo's handling.
    if (firstOverlap(paths)) return undefined;
    compiled.push({ paths, values, compiled: compileUpdateExpression(values) });
  }
  return compiled;
}

/**
 * Applies `$set` stages copy-on-write: the result shares every subtree the stages do not write with `doc`, so
 * the stored version's cached sizes stay valid and the journal records only what changed. Each stage's
 * expressions see the stage's input document, as in mongod. Returns undefined, having changed nothing, when a
 * path runs through something other than a document or a value is missing (mingo's general path handles those).
 */
function applySetStages(doc: Doc, stages: SetStage[]): Doc | undefined {
  let current = doc;
  for (const stage of stages) {
    const values = evaluate(current, stage);
    const root: Doc = { ...current };
    const fresh = new WeakSet<object>([root]);
    for (let f = 0; f < stage.paths.length; f++) {
      const value = values[`f${f}`];
      if (value === undefined) return undefined;
      const segments = stage.paths[f];
      let parent = root;
      for (let i = 0; i < segments.length - 1; i++) {
        const child = ownField(parent, segments[i]);
        let next: Doc;
        if (child === undefined || child === null) {
          next = {};
        } else if (isPlainObject(child)) {
          if (fresh.has(child)) {
            parent = child;
            continue;
          }
          next = { ...child };
        } else {
          return undefined;
        }
        fresh.add(next);
        parent[segments[i]] = next;
        parent = next;
      }
      parent[segments[segments.length - 1]] = value;
    }
    current = root;
  }
  return current;
}

/** A stage's values: by its closures (mingo interprets a 2,500-item list's `$filter`s many times slower), else mingo. */
function evaluate(doc: Doc, stage: SetStage): Doc {
  if (stage.compiled) {
    try {
      return stage.compiled(doc) as Doc;
    } catch (error) {
      if (!(error instanceof NotCompiled)) throw error;
    }
  }
  return evalExpr(doc, stage.values, MINGO_COMPUTE) as Doc;
}

// Segment order as mongod 5+ applies fields: numeric names numerically, others lexicographically.
function comparePaths(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const na = /^\d+$/.test(a[i]);
    const nb = /^\d+$/.test(b[i]);
    if (na && nb) return Number(a[i]) - Number(b[i]);
    return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

/** Tests one array element against an arrayFilters entry. */
type ElementMatcher = (element: unknown) => boolean;

function compileArrayFilters(arrayFilters: unknown): Map<string, ElementMatcher> {
  const filters = new Map<string, ElementMatcher>();
  if (arrayFilters === undefined || arrayFilters === null) return filters;
  if (!Array.isArray(arrayFilters)) throw typeMismatch('arrayFilters must be an array');
  for (const filter of arrayFilters) {
    if (!isPlainObject(filter) || !Object.keys(filter).length) {
      throw failedToParse('Cannot use an expression without a top-level field name in arrayFilters');
    }
    const ids = new Set(
      Object.keys(filter)
        .filter((key) => !key.startsWith('$'))
        .map((key) => key.split('.')[0]),
    );
    if (ids.size !== 1) {
      throw failedToParse(
        `Error parsing array filter :: caused by :: Expected a single top-level field name, found '${[...ids].join("' and '")}'`,
      );
    }
    const [id] = ids;
    if (!/^[a-z][a-zA-Z0-9]*$/.test(id)) {
      throw badValue(
        `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`,
      );
    }
    if (filters.has(id)) throw failedToParse(`Found multiple array filters with the same top-level field name ${id}`);
    const match = compileFilter(filter);
    filters.set(id, (element) => match({ [id]: element }));
  }
  return filters;
}

function compileOperators(update: Doc, arrayFilters: unknown): CompiledUpdate {
  const operations: Operation[] = [];
  const filters = compileArrayFilters(arrayFilters);
  const usedFilters = new Set<string>();
  for (const [op, fields] of Object.entries(update)) {
    if (!OPERATORS.has(op)) {
      if (op.startsWith('$')) {
        throw failedToParse(
          `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
        );
      }
      throw failedToParse(
        `The dollar ($) prefixed field '${Object.keys(update).find((k) => k.startsWith('$'))}' in '${op}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
      );
    }
    if (!isPlainObject(fields)) {
      throw failedToParse(
        `Modifiers operate on fields but we found type ${bsonTypeName(fields)} instead. For example: {$mod: {<field>: ...}} not {${op}: ${formatValue(fields)}}`,
      );
    }
    for (const [path, value] of Object.entries(fields)) {
      const segments = checkPath(path);
      for (const segment of segments) {
        const id = /^\$\[(.*)\]$/.exec(segment)?.[1];
        if (!id) continue;
        if (!filters.has(id)) throw badValue(`No array filter found for identifier '${id}' in path '${path}'`);
        usedFilters.add(id);
      }
      validateOperand(op, path, value);
      operations.push({ op, path, segments, value });
      if (op === '$rename') {
        if (typeof value !== 'string')
          throw badValue(`The 'to' field for $rename must be a string: ${path}: ${formatValue(value)}`);
        const target = checkPath(value);
        if (value === path) throw badValue(`The source and target field for $rename must differ: ${path}: "${value}"`);
        if (segments.some((s) => s.startsWith('$')) || target.some((s) => s.startsWith('$'))) {
          throw badValue(`The source field for $rename may not be dynamic: ${path}`);
        }
      }
    }
  }
  for (const id of filters.keys()) {
    if (!usedFilters.has(id)) {
      throw failedToParse(`The array filter for identifier '${id}' was not used in the update ${formatValue(update)}`);
    }
  }
  checkConflicts(operations);
  operations.sort((a, b) => comparePaths(a.segments, b.segments));
  return {
    kind: 'operators',
    apply: (doc, context) => applyOperators(doc, operations, filters, context),
  };
}

function checkPath(path: string): string[] {
  if (!path) throw new CommandError(56, 'An empty update path is not valid.');
  const segments = path.split('.');
  if (segments.some((segment) => !segment)) {
    throw new CommandError(56, `The update path '${path}' contains an empty field name, which is not allowed.`);
  }
  // Assigning it on a plain object would replace the object's prototype instead of setting a field.
  if (segments.includes('__proto__'))
    throw badValue(
      `The update path '${path}' uses the field name '__proto__', which the embedded engine does not support`,
    );
  return segments;
}

function checkConflicts(operations: Operation[]): void {
  const targets: string[][] = [];
  for (const { op, segments, value } of operations) {
    targets.push(segments);
    if (op === '$rename') targets.push((value as string).split('.'));
  }
  const overlap = firstOverlap(targets);
  if (!overlap) return;
  const [a, b] = overlap.map((i) => targets[i]).sort((x, y) => x.length - y.length);
  throw new CommandError(
    ErrorCode.ConflictingUpdateOperators,
    `Updating the path '${b.join('.')}' would create a conflict at '${a.join('.')}'`,
  );
}

/**
 * The first pair `[i, j]` (by i, then j; i < j) of paths where one is a prefix of, or equal to, the other, as
 * mongod names it. Linear in the total number of segments: an update of 20,000 metadata keys must not cost
 * 200 million path comparisons.
 */
function firstOverlap(paths: string[][]): [number, number] | undefined {
  // First path whose whole is the key, and first path that has the key as a strict prefix.
  const firstWhole = new Map<string, number>();
  const firstUnder = new Map<string, number>();
  const prefixes = paths.map((segments) => {
    let key = '';
    return segments.map((segment, k) => (key = k ? `${key}\0${segment}` : segment));
  });
  prefixes.forEach((keys, i) => {
    if (!firstWhole.has(keys[keys.length - 1])) firstWhole.set(keys[keys.length - 1], i);
    for (const key of keys.slice(0, -1)) if (!firstUnder.has(key)) firstUnder.set(key, i);
  });
  let first: [number, number] | undefined;
  prefixes.forEach((keys, j) => {
    let i = firstUnder.get(keys[keys.length - 1]) ?? j;
    for (const key of keys) i = Math.min(i, firstWhole.get(key) ?? j);
    if (i < j && (!first || i < first[0])) first = [i, j];
  });
  return first;
}

function validateOperand(op: string, path: string, value: unknown): void {
  switch (op) {
    case '$inc':
    case '$mul':
      if (!isNumeric(value)) {
        throw typeMismatch(
          `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${formatValue(value)}}`,
        );
      }
      break;
    case '$pop':
      if (toNumber(value) !== 1 && toNumber(value) !== -1)
        throw failedToParse(`$pop expects 1 or -1, found: ${formatValue(value)}`);
      break;
    case '$pullAll':
      if (!Array.isArray(value))
        throw badValue(`$pullAll requires an array argument but was given a ${bsonTypeName(value)}`);
      break;
    case '$currentDate':
      if (
        value !== true &&
        !(isPlainObject(value) && (value.$type === 'date' || value.$type === 'timestamp')) &&
        value !== false
      ) {
        throw badValue(
          `${formatValue(value)} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`,
        );
      }
      break;
    case '$bit': {
      if (!isPlainObject(value) || !Object.keys(value).length) {
        throw badValue(
          `The $bit modifier is not compatible with a ${bsonTypeName(value)}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`,
        );
      }
      for (const [bitOp, operand] of Object.entries(value)) {
        if (!['and', 'or', 'xor'].includes(bitOp)) {
          throw badValue(
            `The $bit modifier only supports 'and', 'or', and 'xor', not '${bitOp}' which is an unknown operator: {${bitOp}: ${formatValue(operand)}}`,
          );
        }
        if (!isIntegral(operand)) {
          throw badValue(
            `The $bit modifier field must be an Integer(32/64 bit); a '${bsonTypeName(operand)}' is not supported here: {${bitOp}: ${formatValue(operand)}}`,
          );
        }
      }
      break;
    }
    case '$push':
    case '$addToSet':
      if (isPlainObject(value) && '$each' in value) {
        if (!Array.isArray(value.$each)) {
          throw badValue(
            `The argument to $each in ${op} must be an array but it was of type: ${bsonTypeName(value.$each)}`,
          );
        }
        for (const key of Object.keys(value)) {
          const allowed = op === '$push' ? ['$each', '$slice', '$sort', '$position'] : ['$each'];
          if (!allowed.includes(key)) {
            throw badValue(
              op === '$push'
                ? `Unrecognized clause in $push: ${key}`
                : `Found unexpected fields after $each in $addToSet: ${formatValue(value)}`,
            );
          }
        }
        if ('$slice' in value && !Number.isInteger(toNumber(value.$slice))) {
          throw badValue(
            `The value for $slice must be an integer value but was given type: ${bsonTypeName(value.$slice)}`,
          );
        }
        if ('$position' in value && !Number.isInteger(toNumber(value.$position))) {
          throw badValue(
            `The value for $position must be an integer value, not of type: ${bsonTypeName(value.$position)}`,
          );
        }
        if ('$sort' in value) compilePushSort(value.$sort);
      }
      break;
  }
}

const isIntegral = (value: unknown): boolean =>
  value instanceof Long || value instanceof Int32 || (typeof value === 'number' && Number.isInteger(value));

function compilePushSort(spec: unknown): (a: unknown, b: unknown) => number {
  if (spec === 1 || spec === -1) return (a, b) => compareValues(a, b) * (spec as number);
  if (!isPlainObject(spec) || !Object.keys(spec).length) {
    throw badValue('The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields');
  }
  const keys = Object.entries(spec).map(([path, dir]) => {
    if (dir !== 1 && dir !== -1) throw badValue('The $sort element value must be either 1 or -1');
    return { path, dir };
  });
  const field = (item: unknown, path: string): unknown => {
    let current = item;
    for (const segment of path.split('.')) current = isPlainObject(current) ? ownField(current, segment) : undefined;
    return current;
  };
  return (a, b) => {
    for (const { path, dir } of keys) {
      const order = compareValues(field(a, path), field(b, path));
      if (order) return order * dir;
    }
    return 0;
  };
}

/** Per-apply state: which containers were copied by this update and may therefore be mutated. */
interface Writer {
  fresh: WeakSet<object>;
  root: Doc;
  original: Doc;
  filters: Map<string, ElementMatcher>;
}

type Container = Doc | unknown[];
interface Target {
  parent: Container;
  key: string;
  /** The path with positional segments resolved, for messages. */
  path: string;
}

function freshChild(writer: Writer, parent: Container, key: string): Container {
  const child = (parent as Doc)[key] as Container;
  if (writer.fresh.has(child)) return child;
  const copy: Container = Array.isArray(child) ? child.slice() : { ...child };
  writer.fresh.add(copy);
  (parent as Doc)[key] = copy;
  return copy;
}

function elementDescription(path: string, value: unknown): string {
  return `{${path.split('.').pop()}: ${formatValue(value)}}`;
}

/**
 * Resolves a path to the (parent, key) pairs it designates, copying containers on the way. With `create`,
 * missing intermediate documents are created (as $set does); without, a missing path yields no target.
 */
function targets(writer: Writer, segments: string[], create: boolean): Target[] {
  const out: Target[] = [];
  const walk = (container: Container, i: number, path: string): void => {
    const segment = segments[i];
    const last = i === segments.length - 1;
    const here = path ? `${path}.${segment}` : segment;
    const arrayId = /^\$\[(.*)\]$/.exec(segment);
    if (arrayId) {
      if (!Array.isArray(container)) {
        throw badValue(`Cannot apply array updates to non-array element ${elementDescription(path, container)}`);
      }
      const match = arrayId[1] ? writer.filters.get(arrayId[1])! : undefined;
      container.forEach((element, index) => {
        if (match && !match(element)) return;
        descend(container, String(index), last, i, path ? `${path}.${index}` : String(index));
      });
      return;
    }
    if (Array.isArray(container) && !/^\d+$/.test(segment)) {
      throw new CommandError(
        ErrorCode.PathNotViable,
        `Cannot create field '${segment}' in element {${path.split('.').pop()}: ${formatValue(container)}}`,
      );
    }
    descend(container, segment, last, i, here);
  };
  const descend = (container: Container, key: string, last: boolean, i: number, path: string): void => {
    if (last) {
      out.push({ parent: container, key, path });
      return;
    }
    const child = getAt(container, key);
    if (child === undefined || (Array.isArray(container) && Number(key) >= container.length)) {
      if (!create) return;
      if (segments[i + 1].startsWith('$[')) {
        throw badValue(`The path '${path}' must exist in the document in order to apply array updates.`);
      }
      const created: Doc = {};
      writer.fresh.add(created);
      setAt(container, key, created);
      walk(created, i + 1, path);
      return;
    }
    if (child === null || typeof child !== 'object' || !(Array.isArray(child) || isPlainObject(child))) {
      if (!create) return;
      throw new CommandError(
        ErrorCode.PathNotViable,
        `Cannot create field '${segments[i + 1]}' in element {${key}: ${formatValue(child)}}`,
      );
    }
    walk(freshChild(writer, container, key), i + 1, path);
  };
  walk(writer.root, 0, '');
  return out;
}

function setAt(parent: Container, key: string, value: unknown): void {
  if (Array.isArray(parent)) {
    const index = Number(key);
    while (parent.length < index) parent.push(null);
    parent[index] = value;
  } else {
    parent[key] = value;
  }
}

function getAt(parent: Container, key: string): unknown {
  return ownField(parent as Doc, key);
}

/** Replaces the positional `$` with the index of the first array element the filter matched. */
function resolvePositional(operation: Operation, original: Doc, context: UpdateContext): string[] {
  const at = operation.segments.indexOf('$');
  if (at < 0) return operation.segments;
  const index = context.isInsert
    ? -1
    : positionalIndex(original, operation.segments.slice(0, at).join('.'), context.filter);
  if (index < 0) throw badValue('The positional operator did not find the match needed from the query.');
  const segments = operation.segments.slice();
  segments[at] = String(index);
  return segments;
}

function applyOperators(
  doc: Doc,
  operations: Operation[],
  filters: Map<string, ElementMatcher>,
  context: UpdateContext,
): Doc {
  const root: Doc = { ...doc };
  const writer: Writer = { fresh: new WeakSet([root]), root, original: doc, filters };
  for (const operation of operations) {
    if (operation.op === '$setOnInsert' && !context.isInsert) continue;
    const segments = resolvePositional(operation, doc, context);
    if (operation.op === '$rename') {
      rename(writer, segments, (operation.value as string).split('.'));
      continue;
    }
    const create = !['$unset', '$pop', '$pull', '$pullAll'].includes(operation.op);
    for (const target of targets(writer, segments, create)) applyOne(writer, operation, target);
  }
  if (doc._id !== undefined && canonicalKey(root._id) !== canonicalKey(doc._id)) {
    throw new CommandError(
      ErrorCode.ImmutableField,
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  return root;
}

function rename(writer: Writer, from: string[], to: string[]): void {
  const [source] = targets(writer, from, false);
  if (!source) return;
  if (Array.isArray(source.parent)) {
    throw badValue(
      `The source field cannot be an array element, '${from.join('.')}' in doc with _id: ${formatValue(writer.original._id)} has an array field`,
    );
  }
  if (!(source.key in source.parent)) return;
  const value = source.parent[source.key];
  const [destination] = targets(writer, to, true);
  if (Array.isArray(destination.parent)) {
    throw badValue(
      `The destination field cannot be an array element, '${to.join('.')}' in doc with _id: ${formatValue(writer.original._id)} has an array field`,
    );
  }
  delete source.parent[source.key];
  delete destination.parent[destination.key];
  destination.parent[destination.key] = value;
}

function nonNumericTarget(op: string, writer: Writer, target: Target, current: unknown): CommandError {
  return typeMismatch(
    `Cannot apply ${op} to a value of non-numeric type. {_id: ${formatValue(writer.original._id)}} has the field '${target.key}' of non-numeric type ${bsonTypeName(current)}`,
  );
}

function applyOne(writer: Writer, operation: Operation, target: Target): void {
  const { parent, key } = target;
  const current = getAt(parent, key);
  const value = operation.value;
  switch (operation.op) {
    case '$set':
    case '$setOnInsert':
      setAt(parent, key, value);
      return;
    case '$unset':
      if (Array.isArray(parent)) {
        if (Number(key) < parent.length) parent[Number(key)] = null;
      } else {
        delete parent[key];
      }
      return;
    case '$inc':
    case '$mul': {
      if (current === undefined) {
        setAt(parent, key, operation.op === '$inc' ? value : zeroLike(value));
        return;
      }
      if (!isNumeric(current)) throw nonNumericTarget(operation.op, writer, target, current);
      setAt(parent, key, arithmetic(current, value, operation.op));
      return;
    }
    case '$min':
    case '$max': {
      const order = compareValues(value, current);
      if (current === undefined || (operation.op === '$min' ? order < 0 : order > 0)) setAt(parent, key, value);
      return;
    }
    case '$currentDate': {
      if (value === false) return;
      const now = new Date();
      setAt(
        parent,
        key,
        isPlainObject(value) && value.$type === 'timestamp'
          ? new Timestamp({ t: Math.floor(now.getTime() / 1000), i: 1 })
          : now,
      );
      return;
    }
    case '$push':
    case '$addToSet': {
      if (current !== undefined && !Array.isArray(current)) {
        throw badValue(
          operation.op === '$push'
            ? `The field '${key}' must be an array but is of type ${bsonTypeName(current)} in document {_id: ${formatValue(writer.original._id)}}`
            : `Cannot apply $addToSet to non-array field. Field named '${key}' has non-array type ${bsonTypeName(current)}`,
        );
      }
      const array = current ? (current as unknown[]).slice() : [];
      const modifiers = isPlainObject(value) && '$each' in value ? value : undefined;
      const items = modifiers ? (modifiers.$each as unknown[]) : [value];
      if (operation.op === '$addToSet') {
        for (const item of items) if (!array.some((existing) => valuesEqual(existing, item))) array.push(item);
      } else {
        pushWithModifiers(array, items, modifiers);
      }
      setAt(parent, key, array);
      return;
    }
    case '$pop': {
      if (current === undefined) return;
      if (!Array.isArray(current)) {
        throw typeMismatch(`Path '${target.path}' contains an element of non-array type '${bsonTypeName(current)}'`);
      }
      if (!current.length) return;
      setAt(parent, key, toNumber(value) === 1 ? current.slice(0, -1) : current.slice(1));
      return;
    }
    case '$pull':
    case '$pullAll': {
      if (current === undefined) return;
      if (!Array.isArray(current)) throw badValue(`Cannot apply ${operation.op} to a non-array value`);
      const remove =
        operation.op === '$pull'
          ? pullPredicate(value)
          : (item: unknown) => (value as unknown[]).some((v) => valuesEqual(v, item));
      const kept = current.filter((item) => !remove(item));
      if (kept.length !== current.length) setAt(parent, key, kept);
      return;
    }
    case '$bit': {
      const start = current === undefined ? 0 : current;
      if (!isIntegral(start)) {
        throw badValue(
          `Cannot apply $bit to a value of non-integral type.{_id: ${formatValue(writer.original._id)}} has the field ${key} of non-integer type ${bsonTypeName(start)}`,
        );
      }
      let result: unknown = start;
      for (const [bitOp, operand] of Object.entries(value as Doc))
        result = bitwise(result, operand, bitOp as 'and' | 'or' | 'xor');
      setAt(parent, key, result);
      return;
    }
  }
}

function pushWithModifiers(array: unknown[], items: unknown[], modifiers: Doc | undefined): void {
  let position = modifiers?.$position === undefined ? array.length : (toNumber(modifiers.$position) as number);
  if (position < 0) position = Math.max(array.length + position, 0);
  array.splice(Math.min(position, array.length), 0, ...items);
  if (modifiers?.$sort !== undefined) array.sort(compilePushSort(modifiers.$sort));
  if (modifiers?.$slice !== undefined) {
    const slice = toNumber(modifiers.$slice) as number;
    const kept = slice >= 0 ? array.slice(0, slice) : array.slice(Math.max(array.length + slice, 0));
    array.splice(0, array.length, ...kept);
  }
}

/** $pull's test for one element: a query for documents, a condition for scalars, or equality. */
function pullPredicate(condition: unknown): (item: unknown) => boolean {
  if (isPlainObject(condition)) {
    const keys = Object.keys(condition);
    if (keys.length && keys.every((key) => key.startsWith('$') && !['$and', '$or', '$nor'].includes(key))) {
      const match = compileFilter({ v: condition });
      return (item) => match({ v: item });
    }
    const match = compileFilter(condition);
    return (item) => isPlainObject(item) && match(item);
  }
  return (item) => valuesEqual(item, condition);
}

function zeroLike(value: unknown): unknown {
  if (value instanceof Long) return Long.ZERO;
  if (value instanceof Decimal128) return Decimal128.fromString('0');
  return 0;
}

/** `$inc`/`$mul` with mongod's result types (see wideArithmetic); an int64 overflow fails the update, as in mongod. */
function arithmetic(current: unknown, value: unknown, op: '$inc' | '$mul'): unknown {
  const operation = op === '$inc' ? 'add' : 'multiply';
  if ([current, value].some((v) => v instanceof Long || v instanceof Decimal128)) {
    const result = wideArithmetic(current, value, operation);
    if (result === undefined)
      throw badValue(`Failed to apply ${op} operations to current value (${formatValue(current)})`);
    return result;
  }
  const x = toNumber(current) as number;
  const y = toNumber(value) as number;
  return operation === 'add' ? x + y : x * y;
}

function bitwise(a: unknown, b: unknown, op: 'and' | 'or' | 'xor'): unknown {
  if (a instanceof Long || b instanceof Long || !Number.isSafeInteger(a) || Math.abs(a as number) >= 2 ** 31) {
    const x = a instanceof Long ? a : Long.fromNumber(toNumber(a) as number);
    const y = b instanceof Long ? b : Long.fromNumber(toNumber(b) as number);
    return x[op](y);
  }
  const x = a as number;
  const y = toNumber(b) as number;
  return op === 'and' ? x & y : op === 'or' ? x | y : x ^ y;
}

/**
 * The document an upsert starts from: the filter's equality conditions (`field: value`, `$eq`, and those
 * inside `$and`), with dotted paths expanded into embedded documents.
 */
export function upsertSeed(filter: Doc | undefined): Doc {
  const seed: Doc = {};
  const add = (clauses: Doc): void => {
    for (const [key, condition] of Object.entries(clauses)) {
      if (key === '$and' && Array.isArray(condition)) {
        for (const clause of condition) if (isPlainObject(clause)) add(clause);
      } else if (key === '$or' && Array.isArray(condition) && condition.length === 1 && isPlainObject(condition[0])) {
        add(condition[0]);
      } else if (!key.startsWith('$')) {
        if (condition instanceof RegExp) continue;
        if (isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith('$'))) {
          if ('$eq' in condition) setPath(seed, key, condition.$eq);
          continue;
        }
        setPath(seed, key, condition);
      }
    }
  };
  if (filter) add(filter);
  return seed;
}

function setPath(doc: Doc, path: string, value: unknown): void {
  const segments = path.split('.');
  let current = doc;
  for (const segment of segments.slice(0, -1)) {
    if (!isPlainObject(ownField(current, segment))) current[segment] = {};
    current = current[segment] as Doc;
  }
  current[segments[segments.length - 1]] = value;
}
