import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { EJSON } from 'bson';
import type { Db } from 'mongodb';

/** `npm run fuzz`: 20× the cases of a test run, unless FUZZ_RUNS says how many. */
export const LONG_RUN = process.env.FUZZ_LONG === '1';

/** A fuzz test's time limit: generous in the long run, whose length FUZZ_RUNS sets. */
export const FUZZ_TIMEOUT_MS = LONG_RUN || process.env.FUZZ_RUNS ? 3_600_000 : 120_000;

/**
 * Fuzz runs are reproducible: FUZZ_SEED fixes the generator (the failure report names it), FUZZ_RUNS sets the number
 * of cases.
 */
export function fuzzParameters<T>(ciRuns: number): fc.Parameters<T> {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
  const runs = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : LONG_RUN ? 20 * ciRuns : ciRuns;
  return {
    seed,
    numRuns: runs,
    endOnFailure: true,
    // Cases hold megabytes of text: the report names the seed and a cut counterexample instead of printing it whole.
    asyncReporter: async (details) => {
      if (!details.failed) return;
      const example = details.counterexample ? printable(details.counterexample) : '(none)';
      throw new Error(
        `fuzz failed after ${details.numRuns} cases; rerun with FUZZ_SEED=${details.seed}\n` +
          `cause: ${causeOf(details.errorInstance).slice(0, 3000)}\ncounterexample (cut): ${example}`,
      );
    },
  };
}

/**
 * `value` as JSON-like text of about `max` characters at most, for a failure report: long strings, lists and objects
 * are cut and deep nesting elided, so that a case too large or too deep for JSON.stringify (RangeError) is still
 * reported rather than crashing the reporter.
 */
export function printable(value: unknown, max = 3000): string {
  let out = '';
  const seen = new Set<object>();
  const write = (item: unknown, depth: number): void => {
    if (out.length >= max) return;
    if (typeof item === 'string') {
      out += JSON.stringify(item.length > 200 ? `${item.slice(0, 200)}… (${item.length} chars)` : item);
    } else if (item === null || typeof item !== 'object') {
      out += typeof item === 'number' && Number.isFinite(item) ? JSON.stringify(item) : String(item);
    } else if (seen.has(item)) {
      out += '(cycle)';
    } else if (depth >= 20) {
      out += Array.isArray(item) ? '[…]' : '{…}';
    } else {
      seen.add(item);
      const list = Array.isArray(item);
      const keys = list ? [...item.keys()] : Object.keys(item);
      out += list ? '[' : '{';
      for (const [i, key] of keys.slice(0, 50).entries()) {
        if (out.length >= max) break;
        if (i > 0) out += ',';
        if (!list) out += `${JSON.stringify(String(key).slice(0, 100))}:`;
        write((item as Record<string, unknown>)[key], depth + 1);
      }
      if (keys.length > 50) out += `,… (${keys.length} items)`;
      out += list ? ']' : '}';
      seen.delete(item);
    }
  };
  try {
    write(value, 0);
  } catch (error) {
    out += ` (not printable further: ${String(error)})`;
  }
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** An error's message with its causes' (`fetch failed` says why only in its cause), or the thrown value as text. */
export function causeOf(error: unknown): string {
  const parts: string[] = [];
  for (let at = error, hops = 0; at !== undefined && hops < 5; hops++) {
    if (!(at instanceof Error)) {
      parts.push(printable(at, 500));
      break;
    }
    const code = (at as { code?: unknown }).code;
    parts.push(`${at.message}${typeof code === 'string' ? ` (${code})` : ''}`);
    at = at.cause;
  }
  return parts.join('; cause: ');
}

/** Whether `value` is a request body within MAX_BODY_BYTES: one too large to build as a string (RangeError) is not. */
export function fitsInBody(value: unknown, maxBytes: number): boolean {
  try {
    return toJson(value).length <= maxBytes;
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/** Codes a rejection may carry: the caller's fault or state, never the server's (the 413s: a body or variables too wide). */
export const REJECTION_CODES = new Set([
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'BAD_REQUEST',
  'REQUEST_TOO_LARGE',
  'VARIABLES_TOO_LARGE',
]);

export interface GraphQLReply {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; path?: unknown[]; extensions?: any }>;
  };
}

/** POSTs a raw body to the server (as a client would), and reads the reply as JSON whatever the status. */
export async function postRaw(
  url: string,
  body: string | Buffer,
  contentType = 'application/json',
  apiKey?: string,
): Promise<GraphQLReply> {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  let parsed: GraphQLReply['body'];
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${response.status} answered with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, body: parsed };
}

/** POSTs one operation; with `apiKey`, as that key's caller (a server with keys refuses anonymous requests). */
export function postOperation(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  apiKey?: string,
): Promise<GraphQLReply> {
  return postRaw(url, toJson({ query, variables }), 'application/json', apiKey);
}

const DEEP_MARK = /"@@deep:(\d+):(object|list)@@"/g;

/**
 * Nesting far deeper than JSON.stringify can walk on a test's stack: a mark in the value, spelled out as JSON text
 * when the body is written (see {@link toJson}).
 */
export function deepMark(depth: number, list: boolean): string {
  return `@@deep:${depth}:${list ? 'list' : 'object'}@@`;
}

/** JSON.stringify, with each {@link deepMark} replaced by its nesting. */
export function toJson(value: unknown): string {
  return JSON.stringify(value).replace(DEEP_MARK, (_, depth: string, kind: string) => {
    const [open, close] = kind === 'list' ? ['[', ']'] : ['{"a":', '}'];
    return open.repeat(Number(depth)) + '1' + close.repeat(Number(depth));
  });
}

/** The errors of a reply whose code is not a client's: uncoded, INTERNAL_SERVER_ERROR or anything unexpected. */
export function serverFaults(reply: GraphQLReply): unknown[] {
  return (reply.body.errors ?? []).filter((error) => !REJECTION_CODES.has(error.extensions?.code));
}

/**
 * Every collection's count and a hash of its documents in `_id` order: equal before and after a rejected write means
 * nothing was written.
 */
export async function fingerprint(db: Db): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  for (const name of collections) {
    const hash = createHash('sha256');
    let count = 0;
    for await (const doc of db.collection(name).find({}).sort({ _id: 1 })) {
      hash.update(EJSON.stringify(doc, { relaxed: false }));
      count += 1;
    }
    result[name] = `${count}:${hash.digest('hex').slice(0, 16)}`;
  }
  return result;
}

// ---- values -------------------------------------------------------------------------------------------------------

const LONE_SURROGATES = ['\uD800', '\uDFFF', 'a\uDC00b', '\uDBFF\uD800x'];
const ODD_TEXT = [
  '',
  ' ',
  '\0',
  'a\0b',
  '\u202Eevil\u202C',
  'مرحبا بالعالم',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'e\u0301\u0301\u0301\u0301',
  'Z̸̧̛̗͓̪a̵̧͈l̷̨̛g̸o',
  '__proto__',
  // Object.prototype's members: ids and keys so named are stored like any other (test/security/prototype-names.test.ts).
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  '$where',
  'a.b',
  '.',
  '%00',
  '{"$gt":""}',
  '\uFEFF',
  '\r\n\t',
];

/** Strings a client could send: ordinary, Unicode edge cases, and long ones near and over the documented sizes. */
export function oddString(pool: readonly string[] = []): fc.Arbitrary<string> {
  const long = fc
    .constantFrom(50, 51, 255, 256, 1000, 10 * 1024, 10 * 1024 + 1, 100 * 1024 + 1, 1024 * 1024 + 1)
    .chain((size) => fc.constantFrom('x', 'é', '😀').map((unit) => unit.repeat(size).slice(0, size)));
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_TEXT, ...LONE_SURROGATES) },
    { weight: 1, arbitrary: long },
    ...(pool.length ? [{ weight: 6, arbitrary: fc.constantFrom(...pool) }] : []),
  );
}

const ODD_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  -2.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  1e9,
  1e9 + 1,
  1.79e308,
  -1.79e308,
  5e-324,
];

export const oddInt = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 100 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_NUMBERS) },
);

export const oddFloat = fc.oneof(
  { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 1e6 }) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_NUMBERS) },
);

export const oddDate = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom('0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '2024-02-30T00:00:00Z', 'yesterday', ''),
);

/** An object nested `depth` deep along one key (`{a:{a:…}}`), or a list nested so. */
export function nested(depth: number, list = false): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = list ? [value] : { a: value };
  return value;
}

/** An object with an own `__proto__` key, as JSON.parse makes it (a literal would set the prototype). */
function protoKeyed(): Record<string, unknown> {
  return JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}');
}

function manyKeys(count: number): Record<string, number> {
  const object: Record<string, number> = {};
  for (let i = 0; i < count; i++) object[`k${i}`] = i;
  return object;
}

const jsonKey = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '$set',
      '$',
      'a.b',
      'a\0b',
      '__proto__',
      'constructor',
      'toString',
      'valueOf',
      '\uD800',
      '',
    ),
  },
);

const plainJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    oddFloat,
    oddString(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(jsonKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON values: ordinary shapes, `$`/NUL/dot/`__proto__` keys, nesting about the limit of 100 and far past it, many keys. */
export function oddJson(objectOnly: boolean): fc.Arbitrary<unknown> {
  const poison = fc.oneof(
    fc.constantFrom(99, 100, 101).chain((depth) => fc.boolean().map((list) => nested(depth, list && !objectOnly))),
    fc.constantFrom(5000, 100_000).map((depth) => ({ deep: deepMark(depth, false) })),
    fc.constant(protoKeyed()),
    fc.constantFrom(1000, 20_000).map(manyKeys),
    fc.constant({ deep: { $gt: 1 } }),
  );
  const any = fc.oneof({ weight: 5, arbitrary: plainJson }, { weight: 2, arbitrary: poison });
  return objectOnly ? fc.oneof(fc.dictionary(jsonKey, plainJson, { maxKeys: 5 }), poison) : any;
}

// ---- values from the schema ------------------------------------------------------------------------------------------

export interface ValueOptions {
  /** Existing ids by argument or field name (`sessionId`, `id`, …), so that writes reach past NOT_FOUND. */
  ids: IdPool;
  /**
   * Hostile values everywhere (odd text, sizes, numbers, JSON shapes, now and then a wrong type); else plausible ones,
   * so that about half the cases are accepted and their reads checked.
   */
  hostile: boolean;
}

/** Values for a GraphQL input type, read from the schema so that a new field or argument is fuzzed without a change here. */
export function valueFor(type: GraphQLInputType, name: string, options: ValueOptions): fc.Arbitrary<unknown> {
  if (!options.hostile) return rightType(type, name, options);
  const wrongType = fc.constantFrom<unknown>(null, 'x', 3, [1], { a: 1 }, true);
  return fc.oneof({ weight: 30, arbitrary: rightType(type, name, options) }, { weight: 1, arbitrary: wrongType });
}

function rightType(type: GraphQLInputType, name: string, options: ValueOptions): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return rightType(type.ofType, name, options);
  if (isListType(type)) {
    const item = valueFor(type.ofType, name, options);
    if (!options.hostile) return fc.array(item, { maxLength: 3 });
    return fc.oneof(
      { weight: 6, arbitrary: fc.array(item, { maxLength: 4 }) },
      // Long lists repeat one item: a thousand generated ones would each be megabytes.
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constantFrom(101, 1001), item).map(([n, one]) => Array<unknown>(n).fill(one)),
      },
    );
  }
  if (isEnumType(type)) {
    const values = fc.constantFrom(...type.getValues().map((v) => v.name));
    return options.hostile
      ? fc.oneof({ weight: 20, arbitrary: values }, { weight: 1, arbitrary: fc.constant('NOPE') })
      : values;
  }
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const field of fields) model[field.name] = valueFor(field.type, field.name, options);
    const requiredKeys = fields
      .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
      .map((field) => field.name);
    return fc.record(model, { requiredKeys });
  }
  if (isScalarType(type))
    return options.hostile ? hostileScalar(type.name, name, options) : plausibleScalar(type.name, name, options);
  throw new Error(`no generator for ${String(type)}`);
}

export type IdPool = Record<string, readonly string[]>;

const isIdName = (name: string) => /id$/i.test(name) || /Name$/.test(name);

/** The ids known under this name, else every known id. */
function idsFor(ids: IdPool, name: string): readonly string[] {
  return ids[name] ?? Object.values(ids).flat();
}

function hostileScalar(scalar: string, name: string, { ids }: ValueOptions): fc.Arbitrary<unknown> {
  switch (scalar) {
    case 'Int':
      return isIdName(name) ? fc.oneof(fc.integer({ min: 0, max: 3 }), oddInt) : oddInt;
    case 'Float':
      return oddFloat;
    case 'Boolean':
      return fc.boolean();
    case 'DateTimeISO':
      return oddDate;
    case 'JSON':
      return oddJson(false);
    case 'JSONObject':
      return oddJson(true);
    default:
      return oddString(isIdName(name) ? idsFor(ids, name) : []);
  }
}

const plainText = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
);

function plausibleScalar(scalar: string, name: string, { ids }: ValueOptions): fc.Arbitrary<unknown> {
  switch (scalar) {
    case 'Int':
      return isIdName(name) ? fc.integer({ min: 1, max: 3 }) : fc.integer({ min: 1, max: 10 });
    case 'Float':
      return fc.double({ min: 0, max: 1, noNaN: true });
    case 'Boolean':
      return fc.boolean();
    case 'DateTimeISO':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'JSON':
      return fc.oneof(
        plainText,
        fc.array(plainText, { maxLength: 2 }),
        fc.array(fc.record({ text: plainText }), { maxLength: 2 }),
      );
    case 'JSONObject':
      return fc.dictionary(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 3 }), plainText, {
        maxKeys: 3,
      });
    default:
      if (!isIdName(name)) return plainText;
      return fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...idsFor(ids, name)) },
        { weight: 1, arbitrary: plainText },
      );
  }
}

// ---- operations --------------------------------------------------------------------------------------------------------

/** `mutation($a: T!, …) { name(a: $a, …) { __typename } }` for one mutation field, with its variables' arbitrary. */
export function mutationCase(
  field: GraphQLField<unknown, unknown>,
  ids: IdPool,
): { query: string; variables: fc.Arbitrary<Record<string, unknown>> } {
  const declarations = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const passing = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isLeaf(getNamedType(field.type)) ? '' : ' { __typename }';
  const query = `mutation Fuzz${declarations ? `(${declarations})` : ''} { ${field.name}${passing ? `(${passing})` : ''}${selection} }`;
  const requiredKeys = field.args.filter((arg) => isNonNullType(arg.type)).map((arg) => arg.name);
  const variables = fc.boolean().chain((hostile) => {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const arg of field.args) model[arg.name] = valueFor(arg.type, arg.name, { ids, hostile });
    return fc.record(model, { requiredKeys });
  });
  return { query, variables };
}

function isLeaf(type: GraphQLNamedType): boolean {
  return !isObjectType(type);
}

/** Every mutation of the schema, by name. */
export function mutationFields(schema: GraphQLSchema): Array<GraphQLField<unknown, unknown>> {
  return Object.values(schema.getMutationType()!.getFields());
}

/**
 * A selection of every field of an object type down to `depth` levels (fields whose arguments are all optional;
 * lists paged to 3), so one read shows whatever a write stored.
 */
export function selectAll(schema: GraphQLSchema, typeName: string, depth: number): string {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) return '';
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) continue;
    const sized = field.args.find((arg) => ['first', 'limit'].includes(arg.name));
    const args = sized ? `(${sized.name}: 3)` : '';
    const named = getNamedType(field.type);
    if (isLeaf(named)) parts.push(`${field.name}${args}`);
    else if (depth > 1) {
      const inner = selectAll(schema, named.name, depth - 1);
      if (inner) parts.push(`${field.name}${args} { ${inner} }`);
    }
  }
  return parts.join(' ');
}

// ---- reads ---------------------------------------------------------------------------------------------------------------

/** Fields left out of the read-everything selections: per-item searches and vectors, slow and shown elsewhere. */
const HEAVY_FIELDS = /\b(similar|embeddings)(\([^)]*\))? \{[^{}]*(\{[^{}]*\}[^{}]*)*\}/g;

/**
 * One query over every read path that lists stored records: listings, searches, aggregates (sessionAnalytics,
 * toolPerformance of every stored tool), insights, stuck tasks, similar tasks and plans. A document any write stored
 * must leave it without errors.
 */
export async function readEverything(
  schema: GraphQLSchema,
  db: Db,
): Promise<{ query: string; variables: Record<string, unknown> }> {
  const all = (type: string, depth: number) => selectAll(schema, type, depth).replace(HEAVY_FIELDS, '');
  const toolNames = (await db.collection('tool_performance').distinct('toolName')).slice(0, 20) as unknown[];
  const tools = toolNames.map((_, i) => `t${i}: toolPerformance(toolName: $t${i}) { ${all('ToolPerformance', 2)} }`);
  const toolContexts = toolNames.map(
    (_, i) => `tc${i}: toolPerformance(toolName: $t${i}, context: "c") { avgDuration successRate }`,
  );
  const declarations = toolNames.map((_, i) => `$t${i}: String!`).join(', ');
  const insights = ['THOUGHT', 'PLANNER', 'EXECUTOR'].map(
    (agentType) =>
      `${agentType}: agentInsights(agentType: ${agentType}, limit: 100) { count insights { ${all('AgentInsight', 3)} } }`,
  );
  const query = `query ReadEverything${declarations ? `(${declarations})` : ''} {
    sessions(first: 50) { totalCount edges { cursor node { ${all('Session', 5)} } } }
    sessionAnalytics { ${all('SessionAnalytics', 2)} countsBy(by: SESSION_TYPE) { value count } }
    experiences(first: 50) { totalCount edges { cursor node { ${all('Experience', 3)} } } }
    searchExperiences(query: "a b", limit: 20) { ${all('ExperienceSearchHit', 3)} }
    keyword: searchExperiences(query: "x", mode: KEYWORD, limit: 20) { score experience { experienceId } }
    tasks(first: 50) { totalCount edges { node { ${all('Task', 3)} } } }
    planPatterns(first: 50) { totalCount edges { node { ${all('PlanPattern', 2)} } } }
    stuckTasks(minIterations: 1) { ${all('StuckTask', 2)} }
    similarTasks(query: "a", minSimilarity: 0) { count tasks { taskId similarity goal } }
    successfulPlans(goal: "a", minSuccessRate: 0) { count plans { planId score } }
    ${insights.join('\n')}
    ${tools.join('\n')}
    ${toolContexts.join('\n')}
  }`;
  const variables = Object.fromEntries(toolNames.map((name, i) => [`t${i}`, name]));
  return { query, variables };
}

/** A stored tool_performance document of tool `name` with consistent figures, `fields` set over them (poison). */
export function storedToolDocument(name: string, fields: Record<string, unknown>, at: Date): Record<string, unknown> {
  return {
    toolName: name,
    totalExecutions: 2,
    successCount: 1,
    failureCount: 1,
    timedExecutions: 2,
    totalDuration: 10,
    slowCount: 0,
    avgDuration: 5,
    commonErrors: [],
    optimalContext: [],
    contexts: [],
    lastUpdated: at,
    createdAt: at,
    ...fields,
  };
}
