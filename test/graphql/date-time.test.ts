import { GraphQLDateTimeISO } from 'graphql-scalars';
import { DateTimeISO, isoString } from '../../src/graphql/date-time';
import { seededRandom } from '../support/vectors';

describe('DateTimeISO', () => {
  it('writes the same text as Date.toISOString, across years, leap days and the ends of the fast range', () => {
    const random = seededRandom(5);
    const edges = [
      0,
      1,
      Date.UTC(1970, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 1, 29),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      -1,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      -62198755200000, // year -1
      8.64e15,
    ];
    const randoms = Array.from({ length: 20_000 }, () => Math.floor(random() * 253_402_300_800_000));
    for (const ms of [...edges, ...randoms]) expect(isoString(ms)).toBe(new Date(ms).toISOString());
  });

  it('serializes as graphql-scalars does, errors included', () => {
    const values: unknown[] = [
      new Date(Date.UTC(2025, 4, 6, 7, 8, 9, 10)),
      '2025-05-06T07:08:09.010Z',
      '2025-05-06T09:08:09+02:00',
      1_700_000_000_000,
    ];
    for (const value of values) expect(DateTimeISO.serialize(value)).toBe(GraphQLDateTimeISO.serialize(value));
    for (const bad of [new Date(Number.NaN), 'not a date', {}, null]) {
      expect(() => DateTimeISO.serialize(bad)).toThrow(
        (() => {
          try {
            GraphQLDateTimeISO.serialize(bad);
          } catch (error) {
            return (error as Error).message;
          }
          throw new Error(`graphql-scalars accepted ${String(bad)}`);
        })(),
      );
    }
    expect(DateTimeISO.toConfig()).toMatchObject({
      name: GraphQLDateTimeISO.name,
      description: GraphQLDateTimeISO.description,
    });
  });
});
