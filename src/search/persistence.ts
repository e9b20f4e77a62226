import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BSON } from 'mongodb';
import { KeywordIndex } from './bm25';
import { SnapshotReader, SnapshotWriter, readChecked, type FileCheck, type SnapshotSection } from './snapshot';
import type { SpaceDefinition } from './space';
import { HNSW, VectorStore } from './vector-store';
import type { ChangePosition } from './changes';
import { Fingerprints, type DocumentIds } from './document-ids';
import { UNKNOWN_DOCUMENT } from './fingerprint';

/**
 * Version of the snapshot layout (2: fingerprints hash UTF-8 texts; group hashes saved; 3: the manifest has a CRC-32);
 * a snapshot of another version is rebuilt.
 */
export const SNAPSHOT_FORMAT = 3;

/** What a snapshot must have been saved with to be used: anything else is rebuilt from MongoDB. */
export interface SnapshotIdentity {
  space: SpaceDefinition;
  dimensions: number;
  /** The embedder's identity, when known. */
  model: string | null;
}

/** The in-memory state of a space that a snapshot holds. */
export interface SpaceContents {
  /** The in-process vectors; null in atlas mode, where only the keyword side is kept (and followed). */
  vectors: VectorStore | null;
  keywords: KeywordIndex | null;
  /** Every document's fingerprint (see `fingerprint` in fingerprint.ts), by id. */
  fingerprints: Fingerprints;
  /**
   * The ids of the spaces of one collection (shared), numbered, with their document keys: a snapshot saves the keys of
   * its ids; a restore numbers its ids there and adds its keys.
   */
  documents: DocumentIds;
  /**
   * The change stream position the contents reflect every write before (see changes.ts); null where the deployment
   * has no change streams: a restore then compares the whole collection.
   */
  position: ChangePosition | null;
}

/** What a snapshot holds (memory mode): contents with their vectors. */
export type SnapshotContents = SpaceContents & { vectors: VectorStore };

/** A snapshot's manifest: what it was saved for and the files it consists of, with their sizes and checksums. */
export interface Manifest {
  format: number;
  identity: SnapshotIdentity & { hnsw: typeof HNSW };
  generation: string;
  savedAt: string;
  /** `SpaceContents.position` as canonical extended JSON (absent in snapshots saved before positions were kept). */
  position?: string | null;
  files: { graph: FileCheck; vectors: FileCheck; data: FileCheck };
  sections: SnapshotSection[];
}

const MANIFEST = 'snapshot.json';

/** The directory of one space's snapshot: `<root>/<db>/<space>`. */
export function snapshotDir(root: string, db: string, space: string): string {
  return path.join(root, encodeURIComponent(db), encodeURIComponent(space));
}

function fullIdentity(identity: SnapshotIdentity): Manifest['identity'] {
  return { ...identity, space: { ...identity.space }, hnsw: HNSW };
}

/**
 * Saves a space under `dir`, atomically: the files of a new generation are written first, then the manifest naming
 * them replaces the old one (temp file + rename), then older generations are deleted. A crash at any point leaves
 * either the old or the new snapshot; a file torn by a power loss fails its checksum on load and the space is
 * rebuilt, so no fsync is needed for correctness. The contents are all taken before it returns (the graph's worker
 * then writes the graph as it was), so writes to the space cannot interleave.
 * @returns the bytes written
 */
export async function saveSnapshot(
  dir: string,
  identity: SnapshotIdentity,
  contents: SnapshotContents,
): Promise<number> {
  // Private as the engine's data files: the texts' vectors and ids are the users' data.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const generation = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const base = path.join(dir, generation);
  const out = new SnapshotWriter();
  const { graph: graphWritten, vectors } = contents.vectors.save(base, out);
  contents.keywords?.save(out);
  const fingerprints = contents.fingerprints.saved();
  out.ids('fingerprints.ids', fingerprints.ids);
  out.array('fingerprints.values', fingerprints.values);
  out.array('fingerprints.documentKeys', fingerprints.keys);
  const data = out.write(`${base}.data`);
  const graph = await graphWritten;
  const manifest: Manifest = {
    format: SNAPSHOT_FORMAT,
    identity: fullIdentity(identity),
    generation,
    savedAt: new Date().toISOString(),
    position: contents.position ? BSON.EJSON.stringify(contents.position, { relaxed: false }) : null,
    files: { graph, vectors, data },
    sections: out.sections,
  };
  writeManifest(dir, manifest);
  for (const name of readdirSync(dir)) {
    if (name !== MANIFEST && !name.startsWith(`${generation}.`)) rmSync(path.join(dir, name), { force: true });
  }
  return graph.bytes + vectors.bytes + data.bytes;
}

/** The change stream position the snapshot under `dir` was saved with; null when none (or no readable manifest). */
export function savedPosition(dir: string): ChangePosition | null {
  try {
    const { position } = readManifest(dir);
    return position ? (BSON.EJSON.parse(position, { relaxed: false }) as ChangePosition) : null;
  } catch {
    return null;
  }
}

/**
 * Replaces the manifest under `dir` (temp file + rename), with the CRC-32 of its text: every size and checksum of the
 * other files, the sections' offsets and the change stream position are read from it, so a damaged manifest must not
 * be believed (a flipped digit of the position could skip writes; of a section, read the wrong bytes).
 */
export function writeManifest(dir: string, manifest: Manifest): void {
  const text = JSON.stringify(manifest);
  const temporary = path.join(dir, `${MANIFEST}.${manifest.generation}.tmp`);
  writeFileSync(temporary, JSON.stringify({ ...manifest, crc: crc32(text) }), { mode: 0o600 });
  renameSync(temporary, path.join(dir, MANIFEST));
}

/** The manifest under `dir`; throws, naming the file, when it is unreadable, fails its checksum or is of another format. */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST);
  let parsed: Manifest & { crc?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Manifest & { crc?: unknown };
  } catch (error) {
    throw new Error(`${file} is not readable JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed?.format !== SNAPSHOT_FORMAT)
    throw new Error(`${file} has snapshot format ${parsed?.format}, expected ${SNAPSHOT_FORMAT}`);
  // JSON.parse keeps the keys' order, so the text the checksum was taken of is rebuilt exactly.
  const { crc, ...manifest } = parsed;
  if (crc !== crc32(JSON.stringify(manifest))) throw new Error(`${file} fails its checksum`);
  return manifest;
}

/** True when `dir` holds a snapshot (usable or not). */
export function hasSnapshot(dir: string): boolean {
  return existsSync(path.join(dir, MANIFEST));
}

/**
 * Loads the snapshot under `dir`: null when there is none; rejects (saying why) when it cannot be used — saved for
 * another space definition, dimensions, embedder, HNSW parameters or format, or a file fails its size or checksum.
 * The files are read at once; the work on the API thread waits for `first` too (settled either way).
 */
export async function loadSnapshot(
  dir: string,
  identity: SnapshotIdentity,
  documents: DocumentIds,
  first: Promise<unknown> = Promise.resolve(),
): Promise<SnapshotContents | null> {
  if (!hasSnapshot(dir)) return null;
  const manifest = readManifest(dir);
  const expected = fullIdentity(identity);
  for (const key of ['space', 'dimensions', 'model', 'hnsw'] as const) {
    if (JSON.stringify(manifest.identity?.[key]) !== JSON.stringify(expected[key])) {
      throw new Error(
        `snapshot saved for another ${key}: ${JSON.stringify(manifest.identity?.[key])}, now ${JSON.stringify(expected[key])}`,
      );
    }
  }
  const base = path.join(dir, manifest.generation);
  // The graph and vectors load while the data file is read and parsed; the large buffers are allocated first, while
  // the heap is small (see VectorStore.beginRestore).
  const vectorsUnderway = VectorStore.beginRestore(identity.dimensions, base, manifest.files);
  const data = new Uint8Array(manifest.files.data.bytes);
  const [read] = await Promise.all([
    readChecked(`${base}.data`, manifest.files.data, data),
    first.catch(() => undefined),
  ]);
  const input = new SnapshotReader(read, manifest.sections);
  // Links the vector rows now, resolves once the graph is loaded: the rest is restored meanwhile.
  const vectorsRestored = VectorStore.restore(vectorsUnderway, input, documents);
  vectorsRestored.catch(() => undefined);
  const textPaths = identity.space.textPaths ?? [];
  const keywords = textPaths.length ? KeywordIndex.restore(input, textPaths, documents) : null;
  const numbers = input.idNumbers('fingerprints.ids', documents);
  const fingerprints = Fingerprints.restore(documents, numbers, input.float64('fingerprints.values'));
  // Snapshots saved before document keys were kept have none.
  documents.addSavedKeys(
    numbers,
    input.has('fingerprints.documentKeys')
      ? input.int32('fingerprints.documentKeys')
      : new Int32Array(numbers.length).fill(UNKNOWN_DOCUMENT),
  );
  return { vectors: await vectorsRestored, keywords, fingerprints, documents, position: savedPosition(dir) };
}
