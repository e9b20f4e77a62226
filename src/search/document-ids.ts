import { UNKNOWN_DOCUMENT } from './fingerprint';

/** A number's key before any snapshot or read gave one (reported as UNKNOWN_DOCUMENT). */
const NO_KEY = -2;

/** What holds numbers of a {@link DocumentIds}: it marks them when asked, so that the others can be freed. */
export interface NumberHolder {
  markHeld(held: Uint8Array): void;
}

/**
 * The string ids of the documents of one collection (and id field), numbered, with each one's document key (see
 * `documentKey`; UNKNOWN_DOCUMENT until its document is read back). The spaces of the collection share it, and their
 * vector rows, keyword rows and fingerprints are typed arrays indexed by these numbers: a collection's ids are hashed
 * into one map, not one per space and structure (a restore of 4 spaces of 100k ids built 12 such maps, most of its
 * time on the API thread).
 *
 * Whatever keeps numbers registers (`register`, held weakly) and marks them when asked. Once releases (ids a holder
 * dropped) reach a quarter of the numbers, the numbers no live holder marks are freed, for reuse by new ids.
 */
export class DocumentIds {
  private readonly numberOfId = new Map<string, number>();
  private idOfNumber: Array<string | null> = [];
  private keys = new Int32Array(0);
  private freeNumbers: number[] = [];
  /** The id table of the snapshot adopted last (a copy) and its numbers: the spaces of a collection save the same table. */
  private adopted: { table: Buffer; numbers: Int32Array } | null = null;
  private readonly holders = new Set<WeakRef<NumberHolder>>();
  private releases = 0;

  /** Every number is below it. */
  get capacity(): number {
    return this.idOfNumber.length;
  }

  numberOf(id: string): number | undefined {
    return this.numberOfId.get(id);
  }

  /** The number of `id`, given one if it has none. */
  number(id: string): number {
    let number = this.numberOfId.get(id);
    if (number !== undefined) return number;
    number = this.freeNumbers.pop() ?? this.idOfNumber.length;
    this.idOfNumber[number] = id;
    this.numberOfId.set(id, number);
    if (number >= this.keys.length) this.keys = grownTo(this.keys, number + 1, NO_KEY);
    this.keys[number] = NO_KEY;
    return number;
  }

  idOf(number: number): string {
    return this.idOfNumber[number]!;
  }

  key(id: string): number {
    const number = this.numberOfId.get(id);
    return number === undefined ? UNKNOWN_DOCUMENT : this.keyOf(number);
  }

  keyOf(number: number): number {
    return Math.max(this.keys[number], UNKNOWN_DOCUMENT);
  }

  /** Sets the key of `id`, read from its document (it wins over saved ones). */
  setKey(id: string, key: number): void {
    this.keys[this.number(id)] = key;
  }

  /** A snapshot's saved keys of its ids (`numbers` aligned with `keys`). Where two snapshots disagree the key is unknown. */
  addSavedKeys(numbers: Int32Array, keys: Int32Array): void {
    if (numbers.length !== keys.length) throw new Error('document keys do not add up');
    for (let i = 0; i < numbers.length; i++) {
      const number = numbers[i];
      if (number < 0) continue;
      const before = this.keys[number];
      this.keys[number] = before === NO_KEY ? keys[i] : before === keys[i] ? before : UNKNOWN_DOCUMENT;
    }
  }

  /** The ids whose document key is in `keys`, or unknown: those a document with one of those keys may have held. */
  candidates(keys: ReadonlySet<number>): string[] {
    const found: string[] = [];
    for (let number = 0; number < this.idOfNumber.length; number++) {
      const id = this.idOfNumber[number];
      const key = this.keys[number];
      if (id !== null && (key < 0 || keys.has(key))) found.push(id);
    }
    return found;
  }

  /**
   * The numbers of a snapshot's id table (its file's numbering → these numbers), given the table's bytes and how to
   * parse them. A table equal to the one adopted last is not parsed again.
   */
  adopt(table: Uint8Array, parse: () => string[]): Int32Array {
    if (this.adopted && Buffer.compare(this.adopted.table, table) === 0) return this.adopted.numbers;
    const ids = parse();
    // A plain loop: Int32Array.from with a mapping function took half as long again over 124k ids.
    const numbers = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) numbers[i] = this.number(ids[i]);
    this.adopted = { table: Buffer.from(table), numbers };
    return numbers;
  }

  register(holder: NumberHolder): void {
    this.holders.add(new WeakRef(holder));
  }

  /** A holder dropped an id. */
  released(): void {
    if (++this.releases >= Math.max(1024, this.numberOfId.size / 4)) this.prune();
  }

  /** Frees the numbers no live holder marks. */
  prune(): void {
    this.releases = 0;
    this.adopted = null;
    const held = new Uint8Array(this.idOfNumber.length);
    for (const reference of this.holders) {
      const holder = reference.deref();
      if (holder) holder.markHeld(held);
      else this.holders.delete(reference);
    }
    for (let number = 0; number < this.idOfNumber.length; number++) {
      const id = this.idOfNumber[number];
      if (id === null || held[number]) continue;
      this.numberOfId.delete(id);
      this.idOfNumber[number] = null;
      this.freeNumbers.push(number);
    }
  }
}

/**
 * The ids of a structure's rows (vector rows, keyword rows) by the numbers of a collection's {@link DocumentIds}: an
 * id's row is one map lookup (shared) and one array read.
 */
export class RowIds implements NumberHolder {
  /** Rows handed out so far (live or free). */
  length = 0;
  /** Live rows. */
  size = 0;
  private numberOfRow: Int32Array;
  private rowOfNumber = new Int32Array(0);

  constructor(
    readonly documents: DocumentIds,
    capacity = 1024,
  ) {
    this.numberOfRow = new Int32Array(capacity).fill(-1);
    documents.register(this);
  }

  /** The rows of a saved structure: `numbers` by row (-1: a free row). */
  static restore(documents: DocumentIds, numbers: Int32Array, capacity: number): RowIds {
    const rows = new RowIds(documents, Math.max(capacity, numbers.length));
    rows.numberOfRow.set(numbers);
    rows.length = numbers.length;
    rows.rowOfNumber = new Int32Array(documents.capacity).fill(-1);
    for (let row = 0; row < numbers.length; row++) {
      const number = numbers[row];
      if (number < 0) continue;
      if (rows.rowOfNumber[number] !== -1) throw new Error('snapshot: an id holds two rows');
      rows.rowOfNumber[number] = row;
      rows.size++;
    }
    return rows;
  }

  rowOf(id: string): number | undefined {
    const number = this.documents.numberOf(id);
    if (number === undefined || number >= this.rowOfNumber.length) return undefined;
    const row = this.rowOfNumber[number];
    return row < 0 ? undefined : row;
  }

  has(id: string): boolean {
    return this.rowOf(id) !== undefined;
  }

  /** The number (see {@link DocumentIds}) of a row's id; -1 for a free row. */
  numberAt(row: number): number {
    return row < this.length ? this.numberOfRow[row] : -1;
  }

  /** The row of the id numbered `number`; -1 when it has none. */
  rowAt(number: number): number {
    return number < this.rowOfNumber.length ? this.rowOfNumber[number] : -1;
  }

  /** The id of a row; null for a free one. */
  idOf(row: number): string | null {
    const number = row < this.length ? this.numberOfRow[row] : -1;
    return number < 0 ? null : this.documents.idOf(number);
  }

  /** Gives `row` (a free one, or `length` for a new one) to `id`, which has none. */
  set(id: string, row: number): void {
    const number = this.documents.number(id);
    if (number >= this.rowOfNumber.length) this.rowOfNumber = grownTo(this.rowOfNumber, number + 1, -1);
    if (row >= this.numberOfRow.length) this.numberOfRow = grownTo(this.numberOfRow, row + 1, -1);
    this.rowOfNumber[number] = row;
    this.numberOfRow[row] = number;
    this.length = Math.max(this.length, row + 1);
    this.size++;
  }

  /** Frees the row of `id`; returns it (undefined: none). */
  delete(id: string): number | undefined {
    const row = this.rowOf(id);
    if (row === undefined) return undefined;
    this.rowOfNumber[this.numberOfRow[row]] = -1;
    this.numberOfRow[row] = -1;
    this.size--;
    this.documents.released();
    return row;
  }

  /** Each row's id (null: free), for a snapshot. */
  ids(): Array<string | null> {
    return Array.from(this.numberOfRow.subarray(0, this.length), (number) =>
      number < 0 ? null : this.documents.idOf(number),
    );
  }

  /** Moves each row to `renumbered[row]` (-1 for free rows, which are dropped); `length` rows remain. */
  renumber(renumbered: Int32Array, length: number): void {
    const numberOfRow = new Int32Array(Math.max(1024, length * 2)).fill(-1);
    for (let row = 0; row < this.length; row++) {
      const number = this.numberOfRow[row];
      if (number < 0) continue;
      numberOfRow[renumbered[row]] = number;
      this.rowOfNumber[number] = renumbered[row];
    }
    this.numberOfRow = numberOfRow;
    this.length = length;
  }

  /** Marks in `held` the numbers of the ids that have a row. */
  markHeld(held: Uint8Array): void {
    for (let row = 0; row < this.length; row++) if (this.numberOfRow[row] >= 0) held[this.numberOfRow[row]] = 1;
  }
}

/** Each document's fingerprint (see `fingerprint` in fingerprint.ts) by the numbers of a collection's {@link DocumentIds}. */
export class Fingerprints implements NumberHolder {
  size = 0;
  private values = new Float64Array(0);
  private held = new Uint8Array(0);

  constructor(readonly documents: DocumentIds) {
    documents.register(this);
  }

  /** Saved fingerprints: `numbers` aligned with `values`. */
  static restore(documents: DocumentIds, numbers: Int32Array, values: Float64Array): Fingerprints {
    if (numbers.length !== values.length) throw new Error('snapshot fingerprints do not add up');
    const fingerprints = new Fingerprints(documents);
    fingerprints.values = new Float64Array(documents.capacity);
    fingerprints.held = new Uint8Array(documents.capacity);
    for (let i = 0; i < numbers.length; i++) {
      const number = numbers[i];
      if (number < 0) throw new Error('snapshot fingerprints: an id is missing');
      if (!fingerprints.held[number]) fingerprints.size++;
      fingerprints.held[number] = 1;
      fingerprints.values[number] = values[i];
    }
    return fingerprints;
  }

  get(id: string): number | undefined {
    const number = this.documents.numberOf(id);
    return number !== undefined && this.held[number] ? this.values[number] : undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, value: number): void {
    const number = this.documents.number(id);
    if (number >= this.held.length) {
      this.held = grownTo(this.held, number + 1, 0);
      this.values = grownTo(this.values, number + 1, 0);
    }
    if (!this.held[number]) this.size++;
    this.held[number] = 1;
    this.values[number] = value;
  }

  delete(id: string): boolean {
    const number = this.documents.numberOf(id);
    if (number === undefined || !this.held[number]) return false;
    this.held[number] = 0;
    this.size--;
    this.documents.released();
    return true;
  }

  /** The ids held. */
  ids(): string[] {
    const ids: string[] = [];
    for (let number = 0; number < this.held.length; number++)
      if (this.held[number]) ids.push(this.documents.idOf(number));
    return ids;
  }

  /** The ids held, with their fingerprints and document keys (aligned), for a snapshot. */
  saved(): { ids: string[]; values: Float64Array; keys: Int32Array } {
    const ids: string[] = [];
    const values: number[] = [];
    const keys: number[] = [];
    for (let number = 0; number < this.held.length; number++) {
      if (!this.held[number]) continue;
      ids.push(this.documents.idOf(number));
      values.push(this.values[number]);
      keys.push(this.documents.keyOf(number));
    }
    return { ids, values: Float64Array.from(values), keys: Int32Array.from(keys) };
  }

  /** Marks in `held` the numbers of the ids held. */
  markHeld(held: Uint8Array): void {
    for (let number = 0; number < this.held.length; number++) if (this.held[number]) held[number] = 1;
  }
}

/** `array` grown to hold at least `length` items (by half again at least), the new ones set to `fill`. */
export function grownTo<T extends Int32Array | Uint8Array | Float64Array>(array: T, length: number, fill: number): T {
  const grown = new (array.constructor as new (length: number) => T)(
    Math.max(length, Math.ceil(array.length * 1.5), 1024),
  );
  grown.set(array);
  if (fill !== 0) grown.fill(fill, array.length);
  return grown;
}
