import {
  getNamedType,
  GraphQLObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  Kind,
  responsePathAsArray,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFormattedError,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionNode,
} from 'graphql';
import type { Path } from 'graphql/jsutils/Path';
import type { Logger } from '../../logger';
import { finiteFigure } from './json-input';

/**
 * Reading stored documents. A document written by an older version or straight through a driver can hold values the
 * schema cannot carry (a string where a number belongs, an invalid date, a list that is not one). GraphQL would fail
 * such a non-null field and with it every enclosing non-null level up to the whole list or search, so the mappers
 * (`toExperience`, `Session.fromSummary`, …) read each field through these helpers instead: a bad value becomes a
 * safe one (empty text, 0, the epoch, an empty list or object, the documented default of an enum) and the other
 * fields and items keep their stored values. The raw fields (`metadata`, `agentData.raw`, `content`, …) still show
 * what is stored.
 *
 * A substitution is not silent: a mapper reads through a {@link StoredReader}, which records the GraphQL field it
 * substituted on the mapped object; when a query selects that field, the response gets one STORED_VALUE_INVALID error
 * with the field's path ({@link reportStoredValues}, {@link StoredValueReport}).
 */

/** The date a missing or unreadable stored date reads as. */
export const UNKNOWN_DATE = new Date(0);

const INT_MAX = 2 ** 31 - 1;

/**
 * Whether the last helper call below had to substitute: a value present but unusable (or clamped), or a value without
 * a documented default missing. Each helper sets it on every call, so {@link StoredReader.field} reads the flag of the
 * helper call in its own argument.
 */
let substituted = false;

/**
 * Whether the helper call just made substituted: for a mapper on the hot path that creates its {@link StoredReader}
 * only for a document that needs one (`StoredReader.field` then records that same call).
 */
export function wasSubstituted(): boolean {
  return substituted;
}

/** `usable`, recording whether `value` (which `usable` is read from) had to be replaced; see {@link substituted}. */
function read(value: unknown, usable: boolean, hasDefault: boolean): boolean {
  substituted = value === undefined || value === null ? !hasDefault : !usable;
  return usable;
}

export function storedText(value: unknown, fallback?: string): string {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : undefined;
  return read(value, text !== undefined, fallback !== undefined) ? text! : (fallback ?? '');
}

export function storedTextOrNull(value: unknown): string | null {
  return value === null || value === undefined ? ((substituted = false), null) : storedText(value);
}

/** A GraphQL Int: finite numbers truncated and clamped to 32 bits; anything else `fallback`. */
export function storedInt(value: unknown, fallback?: number): number {
  if (!read(value, typeof value === 'number' && Number.isFinite(value), fallback !== undefined)) {
    return typeof value === 'number' && !Number.isNaN(value) ? clampInt(value) : (fallback ?? 0);
  }
  const int = clampInt(value as number);
  substituted = int !== Math.trunc(value as number);
  return int;
}

function clampInt(value: number): number {
  return Math.max(-INT_MAX - 1, Math.min(INT_MAX, Math.trunc(value)));
}

/** A GraphQL Float: numbers clamped to finite ones; anything else `fallback`. */
export function storedFloat(value: unknown, fallback?: number): number {
  read(value, typeof value === 'number' && Number.isFinite(value), fallback !== undefined);
  return typeof value === 'number' ? finiteFigure(value, fallback) : (fallback ?? 0);
}

export function storedFloatOrNull(value: unknown): number | null {
  if (typeof value !== 'number') return ((substituted = value !== undefined && value !== null), null);
  substituted = !Number.isFinite(value);
  return finiteFigure(value);
}

export function storedBoolean(value: unknown, fallback?: boolean): boolean {
  return read(value, typeof value === 'boolean', fallback !== undefined) ? (value as boolean) : (fallback ?? false);
}

/** A valid date: a Date, or a string or number that parses as one; anything else `fallback`. */
export function storedDate(value: unknown, fallback?: Date): Date {
  const date =
    value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  const usable = date !== null && Number.isFinite(date.getTime());
  return read(value, usable, fallback !== undefined) ? date! : (fallback ?? UNKNOWN_DATE);
}

export function storedDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? ((substituted = false), null) : storedDate(value);
}

/** The strings of a stored list (other items read as text where they can, else are left out); not a list: []. */
export function storedTextList(value: unknown): string[] {
  if (!Array.isArray(value)) return (read(value, false, true), []);
  const texts: string[] = [];
  for (const item of value)
    if (item !== null && item !== undefined && typeof item !== 'object') texts.push(storedText(item));
  substituted = texts.length !== value.length;
  return texts;
}

/** The items of a stored list that are objects (documents); not a list: []. */
export function storedObjects<T extends object>(value: unknown): T[] {
  return storedObjectEntries<T>(value).map(([, item]) => item);
}

/**
 * {@link storedObjects}, each with its position in the stored list: the key of an entry that is only ever appended
 * (a feedback, a tool call), which a bad entry left out must not shift.
 */
export function storedObjectEntries<T extends object>(value: unknown): Array<[position: number, item: T]> {
  if (!Array.isArray(value)) return (read(value, false, true), []);
  const entries = [...value.entries()].filter((entry): entry is [number, T] => isPlainObject(entry[1]));
  substituted = entries.length !== value.length;
  return entries;
}

/** A stored object as it is; anything else `{}`. */
export function storedObject(value: unknown): Record<string, unknown> {
  return read(value, isPlainObject(value), true) ? (value as Record<string, unknown>) : {};
}

/** `value` when it is one of `allowed`, else `fallback`. */
export function storedEnum<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return read(value, allowed.includes(value as T), false) ? (value as T) : fallback;
}

export function storedEnumOrNull<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  return read(value, allowed.includes(value as T), true) ? (value as T) : null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A stored field a mapper could not render as stored: the collection, the document's id and the stored field. */
export interface InvalidStoredValue {
  collection: string;
  id: string;
  storedField: string;
}

/** On a mapped object: its GraphQL fields whose values are substitutes, and what each was read from. */
const INVALID_FIELDS = Symbol('invalid stored fields');

type Mapped = { [INVALID_FIELDS]?: Map<string, InvalidStoredValue> };

/** Longest document id an error message or log line repeats. */
const MAX_ID_CHARS = 200;

/**
 * Reads the fields of one stored document for a mapper and records, against the GraphQL field, each value that had to
 * be substituted: `reader.field('goal', 'goal', storedText(doc.goal))`.
 */
export class StoredReader {
  private invalid: Map<string, InvalidStoredValue> | undefined;

  constructor(
    private readonly collection: string,
    private readonly id: unknown,
  ) {}

  /** `value`, the result of the stored-value helper call just made; recorded under `field` when it substituted. */
  field<T>(field: string, storedField: string, value: T): T {
    if (substituted) {
      this.invalid ??= new Map();
      this.invalid.set(field, { collection: this.collection, id: idText(this.id), storedField });
      substituted = false;
    }
    return value;
  }

  /** A reader for a sub-object of the same document (its own GraphQL fields, e.g. a step of `steps`). */
  part(): StoredReader {
    return new StoredReader(this.collection, this.id);
  }

  /** `mapped`, carrying what was recorded for the field resolvers ({@link reportStoredValues}). */
  attach<T extends object>(mapped: T): T {
    if (this.invalid) Object.defineProperty(mapped, INVALID_FIELDS, { value: this.invalid });
    return mapped;
  }
}

function idText(id: unknown): string {
  return (typeof id === 'string' ? id : String(id)).slice(0, MAX_ID_CHARS);
}

/**
 * Reports the value a field resolver returned at `path` as a substitute for `invalid` (null: it is not one), for a
 * resolver that serves a stored list cleaned up: no mapped object carries its own field.
 */
export function reportStoredField(report: StoredValueReport, path: Path, invalid: InvalidStoredValue | null): void {
  if (invalid) report.add(responsePathAsArray(path), { ...invalid, id: idText(invalid.id) });
}

/**
 * The STORED_VALUE_INVALID errors of one request (Context.storedValues): both the Apollo path and the fast path append
 * them to the response. Each document is logged once at WARN.
 */
export class StoredValueReport {
  readonly errors: GraphQLFormattedError[] = [];
  // Made on the first error: one report per request, and most have none.
  private logged?: Set<string>;
  private paths?: Set<string>;

  constructor(
    private readonly logger: Logger,
    /** What the request's log lines carry: its id, and its trace id when it is traced. */
    private readonly request: Record<string, string> = {},
  ) {}

  add(path: ReadonlyArray<string | number>, invalid: InvalidStoredValue): void {
    // An object can be reached from more than one resolver's result: one error per path.
    const at = path.join('\0');
    this.paths ??= new Set();
    if (this.paths.has(at)) return;
    this.paths.add(at);
    const { collection, id, storedField } = invalid;
    this.errors.push({
      message: `The ${collection} document ${JSON.stringify(id)} holds a value its field ${storedField} cannot carry; a substitute is served.`,
      path,
      extensions: { code: 'STORED_VALUE_INVALID', collection, id, storedField },
    });
    const document = `${collection}\0${id}`;
    this.logged ??= new Set();
    if (this.logged.has(document)) return;
    this.logged.add(document);
    this.logger.warn('stored document with values the API cannot render', { ...this.request, collection, id });
  }
}

/**
 * Makes substitutes recorded on objects of `typeNames` reported: every field resolver whose results can hold such an
 * object (its type reaches one of `typeNames` through fields) walks what it returned along the operation's selections
 * and adds, for each selected field an object records, its error to the request's {@link StoredValueReport}.
 *
 * The fields of the stored types themselves stay as they are: wrapping each of them made every field of a listed item
 * a resolver call, which graphql-jit cannot inline (a call and a resolve info per field and item). An object reached through
 * another resolver's result is walked again from there; the report keeps one error per path.
 */
export function reportStoredValues(schema: GraphQLSchema, typeNames: readonly string[]): void {
  for (const typeName of typeNames) {
    if (!(schema.getType(typeName) instanceof GraphQLObjectType)) {
      throw new Error(`reportStoredValues: ${typeName} is not an object type`);
    }
  }
  const reaching = typesReaching(schema, new Set(typeNames));
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve || !reaching.has(getNamedType(field.type).name)) continue;
      field.resolve = (source, args, context: { storedValues?: StoredValueReport }, info) => {
        const result = resolve(source, args, context, info);
        const report = context?.storedValues;
        if (!report) return result;
        const walk: Walk = { fragments: info.fragments, report, reaching, type: getNamedType(info.returnType) };
        if (isPromiseLike(result)) {
          return Promise.resolve(result).then((value) => {
            reportIn(value, walk, info.fieldNodes, info.path);
            return value;
          });
        }
        reportIn(result, walk, info.fieldNodes, info.path);
        return result;
      };
    }
  }
}

/** The names of the types from which one of `stored` can be reached through fields (those included). */
function typesReaching(schema: GraphQLSchema, stored: ReadonlySet<string>): Set<string> {
  const reaching = new Set(stored);
  let grew = true;
  while (grew) {
    grew = false;
    for (const type of Object.values(schema.getTypeMap())) {
      if (reaching.has(type.name) || type.name.startsWith('__')) continue;
      const fields = isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];
      const members = isUnionType(type) ? type.getTypes() : isInterfaceType(type) ? schema.getPossibleTypes(type) : [];
      if (
        fields.some((field) => reaching.has(getNamedType(field.type).name)) ||
        members.some((member) => reaching.has(member.name))
      ) {
        reaching.add(type.name);
        grew = true;
      }
    }
  }
  return reaching;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** A selected field: its response key (alias or name), its name and its own selections. */
interface SelectedField {
  key: string;
  name: string;
  selections: readonly FieldNode[] | null;
}

/** The fields selected under `nodes` (fragments flattened), by selection set: operations are cached and reused. */
const selectedFields = new WeakMap<readonly FieldNode[], SelectedField[]>();

function fieldsUnder(nodes: readonly FieldNode[], fragments: Record<string, FragmentDefinitionNode>): SelectedField[] {
  let fields = selectedFields.get(nodes);
  if (fields) return fields;
  const byKey = new Map<string, { name: string; nodes: FieldNode[] }>();
  const collect = (selections: readonly SelectionNode[]) => {
    for (const selection of selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const entry = byKey.get(key) ?? { name: selection.name.value, nodes: [] };
        entry.nodes.push(selection);
        byKey.set(key, entry);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet.selections);
      else {
        const fragment = fragments[selection.name.value];
        if (fragment) collect(fragment.selectionSet.selections);
      }
    }
  };
  for (const node of nodes) if (node.selectionSet) collect(node.selectionSet.selections);
  fields = [...byKey].map(([key, { name, nodes: fieldNodes }]) => ({
    key,
    name,
    selections: fieldNodes.some((node) => node.selectionSet) ? fieldNodes : null,
  }));
  selectedFields.set(nodes, fields);
  return fields;
}

/** What a walk of one resolver's result needs besides the value and where it is. */
interface Walk {
  fragments: Record<string, FragmentDefinitionNode>;
  report: StoredValueReport;
  /** See {@link typesReaching}: nothing else can hold a recorded substitute. */
  reaching: ReadonlySet<string>;
  /** The type of the value walked (for an interface or union, the walk cannot tell which member it is). */
  type: GraphQLNamedType;
}

/**
 * Reports the substitutes recorded on `value` (an object, or a list of them at any depth) and on what its selected
 * fields hold. A field with its own resolver is left to that resolver's walk; so is every field of an interface or
 * union value, whose member type is not known here, except those the walk can only reach from here.
 */
function reportIn(value: unknown, walk: Walk, nodes: readonly FieldNode[], path: Path): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      reportIn(value[index], walk, nodes, { prev: path, key: index, typename: undefined });
    }
    return;
  }
  const invalid = (value as Mapped)[INVALID_FIELDS];
  const fields = isObjectType(walk.type) ? walk.type.getFields() : null;
  for (const field of fieldsUnder(nodes, walk.fragments)) {
    const found = invalid?.get(field.name);
    const fieldPath: Path = { prev: path, key: field.key, typename: undefined };
    if (found) walk.report.add(responsePathAsArray(fieldPath), found);
    if (!field.selections) continue;
    const definition = fields?.[field.name];
    if (!definition) {
      if (!fields) reportIn((value as Record<string, unknown>)[field.name], walk, field.selections, fieldPath);
      continue;
    }
    const type = getNamedType(definition.type);
    if (definition.resolve || !walk.reaching.has(type.name)) continue;
    reportIn((value as Record<string, unknown>)[field.name], { ...walk, type }, field.selections, fieldPath);
  }
}
