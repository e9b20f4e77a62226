import type { Document } from 'mongodb';
import { fromStoredVector } from '../embeddings/vectors';

/**
 * A search space: one vector field of one collection, plus optional text fields scored by keyword (BM25).
 * Example: `{ name: 'experiences.primary_goal_description', collection: 'eat_agent_experiences',
 * idField: 'experience_id', vectorPath: 'embeddings.primary_goal_description_embedding',
 * textPaths: ['primary_goal_description'], filterFields: ['initiating_agent_id', 'final_outcome', 'tags'] }`.
 */
export interface SpaceDefinition {
  /** Unique name, e.g. `experiences.primary_goal_description`. */
  name: string;
  collection: string;
  /** Dot path of the document's unique string id (what results are keyed by), e.g. `experience_id`. */
  idField: string;
  /** Dot path of the stored vector: an array of numbers (the seeds' form) or a BSON float32 vector. */
  vectorPath: string;
  /** Dot paths of the texts scored by `searchKeyword`; a path may hold a string or an array of strings. */
  textPaths?: readonly string[];
  /**
   * Fields that search filters use. Atlas mode declares them as `filter` fields of the vector search index (Atlas
   * can only pre-filter on those); the in-process index resolves filters with MongoDB and needs no declaration.
   */
  filterFields?: readonly string[];
}

/** What one document contributes to a space: its vector (unit length) and its texts by path. */
export interface SpaceEntry {
  id: string;
  vector: Float32Array | null;
  texts: Record<string, string>;
}

const PATH = /^[^$.\s][^$\s]*$/;

/** Throws on a definition that could not work (empty name, `$` paths, duplicate text paths). */
export function validateSpace(definition: SpaceDefinition): void {
  const problems: string[] = [];
  if (!definition.name.trim()) problems.push('name is empty');
  if (!definition.collection.trim()) problems.push('collection is empty');
  for (const [label, path] of [
    ['idField', definition.idField],
    ['vectorPath', definition.vectorPath],
    ...(definition.textPaths ?? []).map((path) => ['textPaths', path]),
    ...(definition.filterFields ?? []).map((path) => ['filterFields', path]),
  ] as const) {
    if (!PATH.test(path) || path.endsWith('.') || path.includes('..'))
      problems.push(`${label} ${JSON.stringify(path)} is not a field path`);
  }
  if (new Set(definition.textPaths).size !== (definition.textPaths ?? []).length)
    problems.push('textPaths repeat a path');
  if (problems.length)
    throw new Error(`Invalid search space ${JSON.stringify(definition.name)}: ${problems.join('; ')}`);
}

/** True when both definitions describe the same space (so defining it again is a no-op). */
export function sameSpace(a: SpaceDefinition, b: SpaceDefinition): boolean {
  const list = (values: readonly string[] | undefined) => JSON.stringify(values ?? []);
  return (
    a.name === b.name &&
    a.collection === b.collection &&
    a.idField === b.idField &&
    a.vectorPath === b.vectorPath &&
    list(a.textPaths) === list(b.textPaths) &&
    list(a.filterFields) === list(b.filterFields)
  );
}

/** Reads a dot path of a document (undefined when a step is missing). */
export function readPath(document: Document, path: string): unknown {
  // A top-level field (most sort keys) needs no split: a page of 50 rows reads 100 sort values.
  if (!path.includes('.')) return document[path];
  let value: unknown = document;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Document)[key];
  }
  return value;
}

/** A text value as the keyword index reads it: a string, or the strings of an array joined by newlines. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string').join('\n');
  return '';
}

/** The projection that loads what a space needs from its collection (vectors only when `withVectors`). */
export function spaceProjection(definition: SpaceDefinition, withVectors: boolean): Document {
  const projection: Document = { _id: 0, [definition.idField]: 1 };
  if (withVectors) projection[definition.vectorPath] = 1;
  for (const path of definition.textPaths ?? []) projection[path] = 1;
  return projection;
}

/** Extracts a document's entry; null when its id is not a non-empty string. */
export function entryOf(definition: SpaceDefinition, document: Document): SpaceEntry | null {
  const id = readPath(document, definition.idField);
  if (typeof id !== 'string' || id === '') return null;
  const texts: Record<string, string> = {};
  for (const path of definition.textPaths ?? []) texts[path] = textOf(readPath(document, path));
  return { id, vector: fromStoredVector(readPath(document, definition.vectorPath)), texts };
}
