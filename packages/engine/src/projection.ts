import { Aggregator } from 'mingo/aggregator';
import { CommandError, ErrorCode, badValue } from './errors';
import { MINGO_COMPUTE, compileFilter, mingoError, type Matcher } from './filter';
import { isPlainObject, ownField, type Doc } from './values';

type Leaf =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'slice'; skip: number | undefined; limit: number }
  | { kind: 'elemMatch'; match: Matcher }
  | { kind: 'positional' }
  | { kind: 'expr' };
interface Node {
  children: Map<string, Node | Leaf>;
}
const isNode = (entry: Node | Leaf): entry is Node => 'children' in entry;

/** A compiled find projection: applied to stored documents, it returns new objects and never mutates its input. */
export type Projector = (doc: Doc, filter?: Doc) => Doc;

function parseSlice(path: string, spec: unknown): Leaf {
  if (typeof spec === 'number') return { kind: 'slice', skip: undefined, limit: spec };
  if (Array.isArray(spec) && spec.length === 2 && spec.every((n) => typeof n === 'number')) {
    if (spec[1] <= 0) throw badValue(`$slice limit must be positive, got ${spec[1]} for ${path}`);
    return { kind: 'slice', skip: spec[0], limit: spec[1] };
  }
  throw badValue(`$slice only supports numbers and [skip, limit] arrays (${path})`);
}

function applySlice(value: unknown, leaf: Extract<Leaf, { kind: 'slice' }>): unknown {
  if (!Array.isArray(value)) return value;
  if (leaf.skip === undefined)
    return leaf.limit >= 0 ? value.slice(0, leaf.limit) : value.slice(Math.max(value.length + leaf.limit, 0));
  const start = leaf.skip < 0 ? Math.max(value.length + leaf.skip, 0) : leaf.skip;
  return value.slice(start, start + leaf.limit);
}

/**
 * Compiles a find projection as mongod 4.4+ reads it: inclusion or exclusion (not mixed, `_id` aside), dotted
 * paths through embedded documents and arrays, `$slice` (alone it keeps every other field), `$elemMatch`,
 * positional `field.$`, and aggregation expressions for computed fields.
 */
export function compileProjection(projection: unknown): Projector | undefined {
  if (projection === undefined || projection === null) return undefined;
  if (!isPlainObject(projection)) throw new CommandError(ErrorCode.TypeMismatch, "'projection' must be an object");
  const entries = Object.entries(projection);
  if (!entries.length) return undefined;
  const root: Node = { children: new Map() };
  const computed: Doc = {};
  let inclusion = false;
  let exclusion = false;
  let excludeId = false;
  let idIncluded = false;
  let firstExcluded = '';
  for (const [rawPath, spec] of entries) {
    let path = rawPath;
    let leaf: Leaf;
    if (path.endsWith('.$')) {
      path = path.slice(0, -2);
      leaf = { kind: 'positional' };
    } else if (isPlainObject(spec) && Object.keys(spec).length === 1 && '$slice' in spec) {
      leaf = parseSlice(path, spec.$slice);
    } else if (isPlainObject(spec) && Object.keys(spec).length === 1 && '$elemMatch' in spec) {
      if (path.includes('.')) throw badValue('Cannot use $elemMatch projection on a nested field.');
      leaf = { kind: 'elemMatch', match: compileFilter(spec.$elemMatch) };
    } else if (isPlainObject(spec) && '$meta' in spec) {
      throw badValue(`$meta projection is not supported by the embedded engine (${path})`);
    } else if (typeof spec === 'number' || typeof spec === 'boolean') {
      leaf = spec ? { kind: 'include' } : { kind: 'exclude' };
    } else {
      leaf = { kind: 'expr' };
      computed[path] = spec;
    }
    if (path === '_id' && (leaf.kind === 'include' || leaf.kind === 'exclude')) {
      excludeId = leaf.kind === 'exclude';
      idIncluded = !excludeId;
      if (idIncluded) root.children.set('_id', leaf);
      continue;
    }
    if (leaf.kind === 'exclude') {
      exclusion = true;
      firstExcluded ||= path;
    } else if (leaf.kind !== 'slice') {
      inclusion = true;
    }
    let node = root;
    const segments = path.split('.');
    for (const segment of segments.slice(0, -1)) {
      let next = node.children.get(segment);
      if (!next) node.children.set(segment, (next = { children: new Map() }));
      if (!isNode(next)) throw new CommandError(31250, `Path collision at ${path}`);
      node = next;
    }
    const last = segments[segments.length - 1];
    if (node.children.has(last)) throw new CommandError(31250, `Path collision at ${path}`);
    node.children.set(last, leaf);
  }
  if (inclusion && exclusion) {
    throw new CommandError(31254, `Cannot do exclusion on field ${firstExcluded} in inclusion projection`);
  }
  if (idIncluded && !exclusion) inclusion = true; // `{ _id: 1 }` keeps only `_id`
  if (inclusion && !excludeId && !root.children.has('_id')) root.children.set('_id', { kind: 'include' });
  if (!inclusion) {
    if (excludeId) root.children.set('_id', { kind: 'exclude' });
    else root.children.delete('_id');
  }
  const computeFields = Object.keys(computed).length ? compileComputed(computed) : undefined;
  return (doc, filter) => {
    const out = inclusion ? include(doc, root, doc, filter) : exclude(doc, root);
    if (computeFields) Object.assign(out, computeFields(doc));
    return out;
  };
}

function compileComputed(computed: Doc): (doc: Doc) => Doc {
  try {
    const aggregator = new Aggregator([{ $project: { _id: 0, ...computed } }], MINGO_COMPUTE);
    return (doc) => (aggregator.run([doc])[0] as Doc) ?? {};
  } catch (error) {
    throw mingoError(error);
  }
}

function include(value: Doc, node: Node, root: Doc, filter: Doc | undefined, prefix = ''): Doc {
  const out: Doc = {};
  for (const key of Object.keys(value)) {
    const entry = node.children.get(key);
    if (!entry) continue;
    const field = value[key];
    if (isNode(entry)) {
      const path = prefix + key + '.';
      if (isPlainObject(field)) out[key] = include(field, entry, root, filter, path);
      else if (Array.isArray(field)) out[key] = includeArray(field, entry, root, filter, path);
      continue;
    }
    switch (entry.kind) {
      case 'include':
        out[key] = field;
        break;
      case 'slice':
        out[key] = applySlice(field, entry);
        break;
      case 'elemMatch':
        if (Array.isArray(field)) {
          const found = field.find((item) => isPlainObject(item) && entry.match(item));
          if (found !== undefined) out[key] = [found];
        }
        break;
      case 'positional': {
        if (!Array.isArray(field)) throw badValue('positional operator (.$) requires an array field');
        const index = positionalIndex(root, prefix + key, filter);
        if (index < 0)
          throw badValue(
            "Executor error during find command :: caused by :: positional operator '.$' couldn't find a matching element in the array",
          );
        out[key] = [field[index]];
        break;
      }
    }
  }
  return out;
}

function includeArray(items: unknown[], node: Node, root: Doc, filter: Doc | undefined, prefix: string): unknown[] {
  const out: unknown[] = [];
  for (const item of items) {
    if (isPlainObject(item)) out.push(include(item, node, root, filter, prefix));
    else if (Array.isArray(item)) out.push(includeArray(item, node, root, filter, prefix));
  }
  return out;
}

function exclude(value: Doc, node: Node): Doc {
  const out: Doc = {};
  for (const key of Object.keys(value)) {
    const entry = node.children.get(key);
    const field = value[key];
    if (!entry) out[key] = field;
    else if (isNode(entry)) {
      if (isPlainObject(field)) out[key] = exclude(field, entry);
      else if (Array.isArray(field)) out[key] = excludeArray(field, entry);
      else out[key] = field;
    } else if (entry.kind === 'slice') out[key] = applySlice(field, entry);
    else if (entry.kind === 'elemMatch' && Array.isArray(field)) {
      const found = field.find((item) => isPlainObject(item) && entry.match(item));
      if (found !== undefined) out[key] = [found];
    }
  }
  return out;
}

function excludeArray(items: unknown[], node: Node): unknown[] {
  return items.map((item) =>
    isPlainObject(item) ? exclude(item, node) : Array.isArray(item) ? excludeArray(item, node) : item,
  );
}

/**
 * Index of the first element of the array at `arrayPath` that satisfies the filter's conditions on that array
 * (what the positional `$` refers to in updates and projections), or -1.
 */
export function positionalIndex(doc: Doc, arrayPath: string, filter: Doc | undefined): number {
  if (!filter) return -1;
  const relevant = relevantClauses(filter, arrayPath);
  if (!relevant.length) return -1;
  const match = compileFilter({ $and: relevant });
  const segments = arrayPath.split('.');
  let array: unknown = doc;
  for (const segment of segments)
    array = isPlainObject(array) ? array[segment] : Array.isArray(array) ? array[Number(segment)] : undefined;
  if (!Array.isArray(array)) return -1;
  for (let i = 0; i < array.length; i++) {
    if (match(replaceAt(doc, segments, [array[i]]))) return i;
  }
  return -1;
}

function relevantClauses(filter: Doc, arrayPath: string): Doc[] {
  const out: Doc[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) out.push(...relevantClauses(clause, arrayPath));
    } else if (key === arrayPath || key.startsWith(arrayPath + '.')) {
      out.push({ [key]: value });
    }
  }
  return out;
}

function replaceAt(doc: Doc, segments: string[], value: unknown): Doc {
  const [head, ...rest] = segments;
  const copy: Doc = { ...doc };
  const child = ownField(doc, head);
  copy[head] = rest.length ? replaceAt(isPlainObject(child) ? child : {}, rest, value) : value;
  return copy;
}
