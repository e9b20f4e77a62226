import type { Document } from 'mongodb';

/**
 * Aggregation expressions for running totals kept inside one document and changed by one atomic update pipeline
 * (tool performance, plan patterns): nothing is read first, so concurrent writers never lose a count.
 */

/** `stored + added` for a field that may be missing (a new document). */
export const plus = (path: string, added: number): Document => ({ $add: [{ $ifNull: [path, 0] }, added] });

const matchesAll = (variable: string, key: Record<string, unknown>): Document => ({
  $and: Object.entries(key).map(([field, value]) => ({ $eq: [`$$${variable}.${field}`, { $literal: value }] })),
});

/**
 * An expression merging keyed entries into the array at `field`: an entry whose key fields equal a delta's key gets
 * the delta's counts added (and `set` fields replaced), and a delta without such an entry is appended.
 * Values are wrapped in `$literal` so that text starting with `$` is never read as a field path.
 */
export function mergeCountedEntries(
  field: string,
  deltas: Array<{ key: Record<string, unknown>; add: Record<string, number>; set?: Record<string, unknown> }>,
): Document {
  const updated = {
    $map: {
      input: '$$stored',
      as: 'entry',
      in: {
        $switch: {
          branches: deltas.map((delta) => ({
            case: matchesAll('entry', delta.key),
            then: {
              $mergeObjects: [
                '$$entry',
                Object.fromEntries(
                  Object.entries(delta.add).map(([name, value]) => [name, plus(`$$entry.${name}`, value)]),
                ),
                Object.fromEntries(Object.entries(delta.set ?? {}).map(([name, value]) => [name, { $literal: value }])),
              ],
            },
          })),
          default: '$$entry',
        },
      },
    },
  };
  const appended = deltas.map((delta) => ({
    $cond: [
      { $gt: [{ $size: { $filter: { input: '$$stored', as: 'entry', cond: matchesAll('entry', delta.key) } } }, 0] },
      [],
      [{ $literal: { ...delta.key, ...delta.add, ...delta.set } }],
    ],
  }));
  return { $let: { vars: { stored: { $ifNull: [`$${field}`, []] } }, in: { $concatArrays: [updated, ...appended] } } };
}

export const ratio = (numerator: string, denominator: string): Document => ({
  $cond: [{ $gt: [denominator, 0] }, { $divide: [numerator, denominator] }, 0],
});

/** The first `limit` entries of an array expression in `sortBy` order (bounds arrays that grow with new keys). */
export const topEntries = (input: unknown, sortBy: Record<string, 1 | -1>, limit: number): Document => ({
  $slice: [{ $sortArray: { input: { $ifNull: [input, []] }, sortBy } }, limit],
});
