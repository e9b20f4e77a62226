import { CommandError, ErrorCode } from './errors';
import { isPlainObject, ownField, type Doc } from './values';

/**
 * One change of a document patch, addressed by a path of field names (array indexes as decimal strings):
 * `s` sets the value at the path, `u` removes the field, `a` truncates the array at the path to `at` elements
 * and appends `v` (the items). Every step is idempotent, so a patch replays to the same document.
 */
export type PatchStep =
  { k: 's'; p: string[]; v: unknown } | { k: 'u'; p: string[] } | { k: 'a'; p: string[]; at: number; v: unknown[] };

type Container = Doc | unknown[];

const isContainer = (value: unknown): value is Container => Array.isArray(value) || isPlainObject(value);

/** Structural equality that treats two values as equal only when they encode to the same BSON. */
function sameTree(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameTree(a[i], b[i])) return false;
    return true;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || !sameTree(a[ka[i]], b[kb[i]])) return false;
  return true;
}

/**
 * The steps that turn `prev` into `next`, or null when the change is better recorded as the whole document
 * (the top-level field order changed). Updates copy on write, so unchanged subtrees are the same objects in
 * both versions and are skipped at once; an array that only grew becomes one append step.
 */
export function diffDocuments(prev: Doc, next: Doc): PatchStep[] | null {
  const steps: PatchStep[] = [];
  return diffObjects(prev, next, [], steps) ? steps : null;
}

/** Adds the steps for two documents at `path`; false when their field order cannot be reached by sets and unsets. */
function diffObjects(prev: Doc, next: Doc, path: string[], steps: PatchStep[]): boolean {
  const prevKeys = Object.keys(prev);
  const nextKeys = Object.keys(next);
  // Setting a field that does not exist appends it: the surviving old fields must keep their order, first.
  let kept = 0;
  for (const key of prevKeys) {
    if (!Object.hasOwn(next, key)) continue;
    if (nextKeys[kept] !== key) return false;
    kept++;
  }
  // An own `__proto__` field cannot be set by assignment on replay.
  if (nextKeys.includes('__proto__') || prevKeys.includes('__proto__')) return false;
  for (const key of prevKeys) if (!Object.hasOwn(next, key)) steps.push({ k: 'u', p: [...path, key] });
  for (const key of nextKeys) diffValues(prev[key], next[key], Object.hasOwn(prev, key), [...path, key], steps);
  return true;
}

function diffValues(prev: unknown, next: unknown, existed: boolean, path: string[], steps: PatchStep[]): void {
  if (existed && Object.is(prev, next)) return;
  if (existed && isPlainObject(prev) && isPlainObject(next)) {
    const mark = steps.length;
    if (!diffObjects(prev, next, path, steps)) {
      steps.length = mark;
      steps.push({ k: 's', p: path, v: next });
    }
    return;
  }
  if (existed && Array.isArray(prev) && Array.isArray(next)) {
    diffArrays(prev, next, path, steps);
    return;
  }
  if (existed && sameTree(prev, next)) return;
  steps.push({ k: 's', p: path, v: next });
}

function diffArrays(prev: unknown[], next: unknown[], path: string[], steps: PatchStep[]): void {
  if (next.length > prev.length) {
    let same = 0;
    while (same < prev.length && sameTree(prev[same], next[same])) same++;
    if (same === prev.length) {
      steps.push({ k: 'a', p: path, at: prev.length, v: next.slice(prev.length) });
      return;
    }
  }
  if (next.length === prev.length) {
    for (let i = 0; i < next.length; i++) diffValues(prev[i], next[i], true, [...path, String(i)], steps);
    return;
  }
  steps.push({ k: 's', p: path, v: next });
}

/**
 * Applies patch steps to a stored document and returns the new version; `doc` and its subtrees are not
 * modified (the containers on each step's path are copied once). A path that does not lead where the step
 * needs it to (a missing parent, or an array where a document is expected) means the journal and the state
 * disagree: that throws.
 */
export function applyPatch(doc: Doc, steps: PatchStep[]): Doc {
  const root: Doc = { ...doc };
  const fresh = new WeakSet<object>([root]);
  for (const step of steps) {
    let parent: Container = root;
    for (let i = 0; i < step.p.length - 1; i++) {
      const key = step.p[i];
      const child: unknown = Array.isArray(parent) ? parent[Number(key)] : ownField(parent, key);
      if (!isContainer(child)) throw corrupt(step);
      let copy: Container = child;
      if (!fresh.has(child)) {
        copy = Array.isArray(child) ? child.slice() : { ...child };
        fresh.add(copy);
        if (Array.isArray(parent)) parent[Number(key)] = copy;
        else parent[key] = copy;
      }
      parent = copy;
    }
    const key = step.p[step.p.length - 1];
    if (step.k === 'u') {
      if (Array.isArray(parent)) throw corrupt(step);
      delete parent[key];
    } else if (step.k === 's') {
      if (Array.isArray(parent)) {
        const index = Number(key);
        if (!(index < parent.length)) throw corrupt(step);
        parent[index] = step.v;
      } else {
        parent[key] = step.v;
      }
    } else {
      const current: unknown = Array.isArray(parent) ? parent[Number(key)] : ownField(parent, key);
      if (!Array.isArray(current) || current.length < step.at) throw corrupt(step);
      const items = current.slice(0, step.at);
      for (const item of step.v) items.push(item);
      if (Array.isArray(parent)) parent[Number(key)] = items;
      else parent[key] = items;
      fresh.add(items);
    }
  }
  return root;
}

const corrupt = (step: PatchStep): CommandError =>
  new CommandError(ErrorCode.InternalError, `journal patch does not fit the stored document at '${step.p.join('.')}'`);
