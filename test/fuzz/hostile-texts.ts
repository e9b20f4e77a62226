import { createCipheriv } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { PROTOTYPE_NAMES } from '../support/prototype-names';

export const KB = 1024;
export const MB = 1024 * KB;

/** Text sizes (UTF-8 bytes) of a test run: 1 KB … 1 MB. */
export const CI_SIZES = [KB, 4 * KB, 16 * KB, 64 * KB, 256 * KB, MB];
/** The largest text the targets name: under the 32 MB body limit of a mutation. */
export const HUGE = 12 * MB;

/** A generated text and what it is, for reports (the text itself is megabytes). */
export interface Drawn<T = unknown> {
  shape: string;
  value: T;
  /** Another value of the same shape and size, to measure a case again on text the server has not seen. */
  again?: () => T;
}

/** A small deterministic generator (LCG), so that a case is rebuilt from its seed, and fast enough for 12 MB. */
function lcg(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 8;
  };
}

/** `block` repeated to `length` UTF-16 units, never cutting a surrogate pair. */
function repeatTo(block: string, length: number): string {
  if (block.length === 0) return '';
  let text = block.repeat(Math.floor(length / block.length)) + block.slice(0, length % block.length);
  if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1);
  return text;
}

/** Units of `bytesPerUnit` UTF-8 bytes (each unit may be two UTF-16 units) drawn from `alphabet`, `bytes` in all. */
function fromAlphabet(alphabet: readonly string[], bytesPerUnit: number, bytes: number, seed: number): string {
  const next = lcg(seed);
  const units = Math.floor(bytes / bytesPerUnit);
  // A pseudo-random block repeated: one unbroken token all the same, built in milliseconds even at 12 MB.
  const blockUnits = Math.min(units, 16 * KB);
  const parts: string[] = [];
  for (let i = 0; i < blockUnits; i++) parts.push(alphabet[next() % alphabet.length]);
  const block = parts.join('');
  const unitLength = alphabet[0].length;
  return repeatTo(block, units * unitLength);
}

/**
 * `length` pseudo-random bytes from `seed` (AES-CTR's keystream): a token as random as a file's base64, built
 * natively (a loop in jest's vm context would take seconds for 12 MB).
 */
function randomBytes(seed: number, length: number): Buffer {
  const key = Buffer.alloc(16);
  key.writeUInt32LE(seed >>> 0);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(length));
}

const chars = (text: string) => [...text];
/** Two bytes each: Latin with diacritics, Greek, Cyrillic. */
const TWO_BYTE = chars('éüñçøßжяблдλΩπσДЖ');
/** Three bytes each: CJK ideographs and kana, written without spaces. */
const CJK = chars('漢字語中文日本韓國書道東京大阪ひらがなカタ');
/** Four bytes each (a surrogate pair in UTF-16). */
const EMOJI = chars('😀🚀🔥🎉🧠🦄🌍📦🛠🧪');

/** A text `bytes` long (UTF-8) built from `piece(i)` appended until it is full (cut at a code point). */
function pieces(bytes: number, piece: (i: number) => string, separator = ''): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes && i < 64 * KB; i++) {
    const part = piece(i) + separator;
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  const block = parts.join('');
  const blockBytes = Math.max(1, Buffer.byteLength(block));
  // Repeat the block (at most 64k pieces are built one by one) and cut to the byte size.
  const text = block.repeat(Math.ceil(bytes / blockBytes));
  return cutToBytes(text, bytes);
}

/** `text` cut to at most `bytes` UTF-8 bytes, at a code point. */
export function cutToBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text.slice(0, bytes), 'utf8');
  if (encoded.length <= bytes) return encoded.toString('utf8');
  let end = bytes;
  // Step back to the first byte of the sequence the cut falls in.
  while (end > 0 && (encoded[end] & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}

/** One token with no separator at all, as an agent's data holds them: a file in base64, a hash, a minified line. */
export const LONG_TOKENS: Record<string, (bytes: number, seed: number) => string> = {
  // `+` and `/` split it into about bytes/32 distinct words of up to 64 characters and more.
  base64: (bytes, seed) =>
    randomBytes(seed, Math.ceil((bytes * 3) / 4))
      .toString('base64')
      .slice(0, bytes - 2) + '==',
  hex: (bytes, seed) =>
    randomBytes(seed, Math.ceil(bytes / 2))
      .toString('hex')
      .slice(0, bytes),
  alnum: (bytes, seed) =>
    randomBytes(seed, Math.ceil((bytes * 3) / 4))
      .toString('base64')
      .replace(/[+/]/g, '0')
      .slice(0, bytes),
  'minified JSON': (bytes, seed) => {
    const next = lcg(seed);
    return pieces(
      bytes,
      (i) => `${i ? ',' : '['}{"id":${next() % 100000},"name":"n${next() % 997}","tags":["a","b"],"ok":true}`,
    );
  },
  URL: (bytes, seed) => {
    const next = lcg(seed);
    return 'https://example.com/' + pieces(bytes - 20, (i) => (i < 50 ? `seg${next() % 1000}/` : `&p${i}=${next()}`));
  },
  'stack trace': (bytes) => pieces(bytes, (i) => `at.com.example.Service${i % 50}.call(Service.java:${i})`),
  'two-byte letters': (bytes, seed) => fromAlphabet(TWO_BYTE, 2, bytes, seed),
  CJK: (bytes, seed) => fromAlphabet(CJK, 3, bytes, seed),
  emoji: (bytes, seed) => fromAlphabet(EMOJI, 4, bytes, seed),
};

/** Words the stemmer, stop list and synonyms all act on. */
const WORDS =
  'error errors failed failing book booking flight running runs connection timeout retry cache database users query the a of'.split(
    ' ',
  );

const COMBINING = Array.from({ length: 0x70 }, (_, i) => String.fromCharCode(0x300 + i));
const ZWJ_SEQUENCES = ['👩‍👩‍👧‍👦', '👨‍👩‍👧', '🏳️‍🌈', '🏳️‍⚧️', '👩🏽‍💻', '🧑🏿‍🚀', '👨‍❤️‍💋‍👨', '🇫🇷', '🇯🇵', '🇺🇳', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '1️⃣', '#️⃣', '👍🏻'];
const RTL_WORDS = ['مرحبا', 'بالعالم', 'שלום', 'עולם', 'اختبار', 'בדיקה', '١٢٣', '42', 'abc'];
const BIDI_CONTROLS = [
  '\u202E',
  '\u202B',
  '\u202A',
  '\u202D',
  '\u202C',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200F',
  '\u200E',
  '\u061C',
];

/** Texts that are not one long token: many short ones, stacked marks, emoji sequences, right-to-left runs. */
export const OTHER_TEXTS: Record<string, (bytes: number, seed: number) => string> = {
  'many short tokens': (bytes, seed) => {
    const next = lcg(seed);
    return pieces(
      bytes,
      () => {
        const pick = next() % 4;
        if (pick < 2) return WORDS[next() % WORDS.length];
        if (pick === 2) return String(next() % 1000);
        return String.fromCharCode(97 + (next() % 26)).repeat(1 + (next() % 3));
      },
      ' ',
    );
  },
  'Zalgo (marks stacked 3 to 300 deep)': (bytes, seed) => {
    const next = lcg(seed);
    return pieces(bytes, () => {
      const depth = [3, 30, 300][next() % 3];
      let glyph = String.fromCharCode(97 + (next() % 26));
      for (let j = 0; j < depth; j++) glyph += COMBINING[next() % COMBINING.length];
      return glyph;
    });
  },
  'one letter under all the marks': (bytes, seed) => 'a' + fromAlphabet(COMBINING, 2, bytes - 1, seed),
  'emoji ZWJ sequences and flags': (bytes, seed) => {
    const next = lcg(seed);
    return pieces(bytes, () => ZWJ_SEQUENCES[next() % ZWJ_SEQUENCES.length], next() % 2 ? ' ' : '');
  },
  'one endless ZWJ chain': (bytes) => pieces(bytes, (i) => (i ? '\u200D👩' : '👩')),
  'right-to-left with bidi controls': (bytes, seed) => {
    const next = lcg(seed);
    return pieces(
      bytes,
      () =>
        BIDI_CONTROLS[next() % BIDI_CONTROLS.length] +
        RTL_WORDS[next() % RTL_WORDS.length] +
        (next() % 3 ? '' : BIDI_CONTROLS[next() % BIDI_CONTROLS.length]),
      ' ',
    );
  },
};

export const TEXT_SHAPES: Record<string, (bytes: number, seed: number) => string> = {
  ...Object.fromEntries(Object.entries(LONG_TOKENS).map(([name, make]) => [`${name} token`, make])),
  ...OTHER_TEXTS,
};

const sizeName = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / KB} KB`);

/** One hostile text of one of `sizes`, or a name that is an Object.prototype member. */
export function hostileText(sizes: readonly number[]): fc.Arbitrary<Drawn<string>> {
  const shaped = fc
    .tuple(fc.constantFrom(...Object.keys(TEXT_SHAPES)), fc.constantFrom(...sizes), fc.nat())
    .map(([shape, bytes, seed]) => ({
      shape: `${shape}, ${sizeName(bytes)}`,
      value: TEXT_SHAPES[shape](bytes, seed),
      again: () => TEXT_SHAPES[shape](bytes, seed + 1),
    }));
  const named = fc.constantFrom(...PROTOTYPE_NAMES).map((name) => ({ shape: `name ${name}`, value: name }));
  return fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: named });
}

/** 10,000 items (tags, components, keys…): distinct, all the same, prototype names, or 100-byte tokens (1 MB). */
export function hostileList(): fc.Arbitrary<Drawn<string[]>> {
  const count = 10_000;
  const lists: Record<string, () => string[]> = {
    distinct: () => Array.from({ length: count }, (_, i) => `item-${i}`),
    'all the same': () => Array<string>(count).fill('same'),
    'prototype names': () => Array.from({ length: count }, (_, i) => PROTOTYPE_NAMES[i % PROTOTYPE_NAMES.length]),
    '100-byte hex tokens': () => Array.from({ length: count }, (_, i) => LONG_TOKENS.hex(100, i + 1)),
    'Zalgo and RTL': () =>
      Array.from({ length: count }, (_, i) =>
        i % 2
          ? OTHER_TEXTS['Zalgo (marks stacked 3 to 300 deep)'](40, i + 1)
          : OTHER_TEXTS['right-to-left with bidi controls'](40, i + 1),
      ),
  };
  return fc.constantFrom(...Object.keys(lists)).map((name) => ({ shape: `10k items, ${name}`, value: lists[name]() }));
}

/** A JSON value around a hostile text: the text, a content block list, or an object keyed by prototype names. */
export function hostileJson(sizes: readonly number[], objectOnly: boolean): fc.Arbitrary<Drawn> {
  const text = hostileText(sizes);
  const keyed = fc
    .tuple(fc.constantFrom(...PROTOTYPE_NAMES.filter((name) => name !== '__proto__')), text)
    .map(([key, { shape, value }]) => ({ shape: `{${key}: ${shape}}`, value: Object.fromEntries([[key, value]]) }));
  const allNames = text.map(({ shape, value }) => ({
    shape: `every prototype name a key of ${shape}`,
    value: Object.fromEntries(PROTOTYPE_NAMES.map((name) => [name, value.slice(0, 1000)])),
  }));
  const wide = fc.constantFrom(10_000, 10_001).map((count) => ({
    shape: `${count} keys`,
    value: Object.fromEntries(
      Array.from({ length: count }, (_, i) => [i < PROTOTYPE_NAMES.length ? PROTOTYPE_NAMES[i] : `k${i}`, i]),
    ),
  }));
  const objects = [
    keyed,
    allNames,
    wide,
    text.map(({ shape, value }) => ({ shape: `{text: ${shape}}`, value: { text: value } })),
  ];
  if (objectOnly) return fc.oneof(...objects);
  return fc.oneof(
    { weight: 3, arbitrary: text },
    {
      weight: 2,
      arbitrary: text.map(({ shape, value }) => ({ shape: `[{text: ${shape}}]`, value: [{ text: value }] })),
    },
    { weight: 1, arbitrary: hostileList() },
    ...objects.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

// ---- where the texts go ----------------------------------------------------------------------------------------------

export type Path = Array<string | number>;

/**
 * A place in an operation's variables that holds text: a String/ID/DateTimeISO (`text`), a JSON or JSONObject value,
 * a list of texts, or a list of input objects (filled with 10,000 copies of its first item).
 */
export interface Slot {
  path: Path;
  kind: 'text' | 'json' | 'jsonObject' | 'textList' | 'objectList';
}

const TEXT_SCALARS = new Set(['String', 'ID', 'DateTimeISO']);

/** Every text slot of a field's arguments, read from the schema: a field or argument added later is drawn as well. */
export function slotsOf(field: GraphQLField<unknown, unknown>): Slot[] {
  const slots: Slot[] = [];
  const walk = (type: GraphQLInputType, path: Path, depth: number): void => {
    if (depth > 8) return;
    if (isNonNullType(type)) return walk(type.ofType, path, depth);
    if (isListType(type)) {
      let item = type.ofType;
      if (isNonNullType(item)) item = item.ofType;
      if (isScalarType(item) && TEXT_SCALARS.has(item.name)) slots.push({ path, kind: 'textList' });
      if (isInputObjectType(item)) slots.push({ path, kind: 'objectList' });
      return walk(item, [...path, 0], depth + 1);
    }
    if (isEnumType(type)) return;
    if (isInputObjectType(type)) {
      for (const inner of Object.values(type.getFields())) walk(inner.type, [...path, inner.name], depth + 1);
      return;
    }
    if (isScalarType(type)) {
      if (TEXT_SCALARS.has(type.name)) slots.push({ path, kind: 'text' });
      else if (type.name === 'JSON') slots.push({ path, kind: 'json' });
      else if (type.name === 'JSONObject') slots.push({ path, kind: 'jsonObject' });
    }
  };
  for (const arg of field.args) walk(arg.type, [arg.name], 0);
  return slots;
}

/** A hostile value for a slot. */
export function valueForSlot(slot: Slot, sizes: readonly number[], base: unknown): fc.Arbitrary<Drawn> {
  switch (slot.kind) {
    case 'text':
      return hostileText(sizes);
    case 'json':
      return hostileJson(sizes, false);
    case 'jsonObject':
      return hostileJson(sizes, true);
    case 'textList':
      return hostileList();
    case 'objectList': {
      const items = getAt(base, slot.path);
      const first = Array.isArray(items) && items.length ? items[0] : {};
      return fc.constant({
        shape: '10k items, copies of the first',
        value: Array.from({ length: 10_000 }, () => structuredClone(first)),
      });
    }
  }
}

export function getAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** `value` at `path` of `root` (changed in place), making the objects and one-item lists on the way. */
export function setAt(root: Record<string, unknown>, path: Path, value: unknown): void {
  let at: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    const nextIsIndex = typeof path[i + 1] === 'number';
    let child = at[key];
    if (child === null || typeof child !== 'object') {
      child = nextIsIndex ? [{}] : {};
      at[key] = child;
    }
    if (nextIsIndex && (child as unknown[]).length === 0) (child as unknown[]).push({});
    at = child as Record<string | number, unknown>;
  }
  at[path[path.length - 1]] = value;
}

export const pathName = (path: Path) => path.join('.');

// ---- event-loop stalls -------------------------------------------------------------------------------------------------

/** The preload that measures a spawned server's event loop (see the file). */
export const STALL_PROBE_PRELOAD = path.join(__dirname, 'stall-probe.mjs');

/**
 * The longest event-loop stall of a server process started with {@link STALL_PROBE_PRELOAD}, between `start` and
 * `stop`, in milliseconds. Measured there, not in the test's process: jest runs code in a vm context, where V8 runs
 * loops over strings many times slower than in a server (FNV-1a over 12 MB: 2.4 s against 40 ms).
 */
export class StallProbe {
  constructor(private readonly url: string) {}

  static fromOutput(output: string): StallProbe {
    const found = /stall probe: (\S+)/.exec(output);
    if (!found) throw new Error(`the server printed no stall probe address:\n${output.slice(0, 2000)}`);
    return new StallProbe(found[1]);
  }

  async start(): Promise<void> {
    await this.read('/reset');
  }

  /** The longest stall since `start`, in ms. */
  async stop(): Promise<number> {
    return this.read('/max');
  }

  private async read(route: string): Promise<number> {
    const response = await fetch(`${this.url}${route}`);
    return ((await response.json()) as { maxMs: number }).maxMs;
  }
}

/** The stall a request may cause: 100 ms per MB of its body (the budget), never less than `floorMs`. */
export function stallBudgetMs(bodyBytes: number, floorMs: number): number {
  return Math.max(floorMs, (100 * bodyBytes) / MB);
}
