import { evalExpr } from 'mingo/core';
import { isPlainObject, ownField, type Doc } from './values';

type ComputeOptions = Parameters<typeof evalExpr>[2];
interface Documents {
  map(fn: (doc: Doc) => Doc): Documents;
}

const INDEX = /^\d+$/;

/**
 * mingo's `$addFields` (and `$set`, its alias), reaching only a document's own fields. mingo's path walk reads
 * `obj[key]`, so in a document without a field named `constructor` (or `toString`, `valueOf`...) it finds
 * Object.prototype's member there, creates nothing and sets nothing: `{$set: {"agents.constructor.x": 1}}` was a
 * silent no-op. Otherwise as mingo's: the top level is copied, a missing or null step becomes `{}`, an array is
 * entered only by an index, and a value that evaluates to undefined (`$$REMOVE`) removes the field.
 */
export function $addFields(collection: Documents, expr: Doc, options: ComputeOptions): Documents {
  const fields = Object.keys(expr);
  if (fields.length === 0) return collection;
  for (const field of fields) {
    if (field.split('.').includes('__proto__')) {
      throw new Error(`Accessing __proto__ is not allowed in selector: '${field}'.`);
    }
  }
  return collection.map((doc) => {
    const out: Doc = { ...doc };
    for (const field of fields) {
      const value = evalExpr(doc, expr[field], options);
      if (value !== undefined) setOwnPath(out, field.split('.'), value);
      else removeOwnPath(out, field.split('.'));
    }
    return out;
  });
}

function setOwnPath(container: unknown, segments: string[], value: unknown): void {
  let current = container;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i];
    if (Array.isArray(current)) {
      if (!INDEX.test(key)) return;
    } else if (!isPlainObject(current)) return;
    let child = ownField(current as Doc, key);
    if (child === undefined || child === null) {
      child = {};
      (current as Doc)[key] = child;
    }
    current = child;
  }
  const last = segments[segments.length - 1];
  if (isPlainObject(current) || (Array.isArray(current) && INDEX.test(last))) (current as Doc)[last] = value;
}

function removeOwnPath(container: unknown, segments: string[]): void {
  let current = container;
  for (let i = 0; i < segments.length - 1; i++) {
    if (!isPlainObject(current) && !Array.isArray(current)) return;
    current = ownField(current as Doc, segments[i]);
  }
  const last = segments[segments.length - 1];
  if (Array.isArray(current)) {
    if (INDEX.test(last)) current.splice(Number(last), 1);
  } else if (isPlainObject(current)) delete current[last];
}
