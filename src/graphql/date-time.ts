import { GraphQLScalarType } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';

/** 10000-01-01T00:00:00.000Z: from there on (and before 1970) toISOString's own text is used. */
const YEAR_10000_MS = 253_402_300_800_000;
const DAY_MS = 86_400_000;

const pad2 = (value: number) => (value < 10 ? `0${value}` : `${value}`);
const pad3 = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`);

/**
 * `new Date(ms).toISOString()` for 1970 to 9999, by integer arithmetic (the civil date of a day number, as in Howard
 * Hinnant's `civil_from_days`): about 90 ns against 350-550 ns for the builtin, and experiencesWithSessions
 * serializes 100 dates per request.
 */
export function isoString(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000_MS)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  // Days since 0000-03-01 in 400-year eras of 146,097 days; March-based years put the leap day last.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(millis)}Z`;
}

/**
 * type-graphql's scalar for `Date` fields (graphql-scalars' DateTimeISO: same name, description, parsing and errors),
 * with a valid `Date` serialized by {@link isoString}; anything else goes to the original, which checks and
 * converts it.
 */
export const DateTimeISO = new GraphQLScalarType({
  ...GraphQLDateTimeISO.toConfig(),
  serialize(value: unknown) {
    if (value instanceof Date) {
      const ms = value.getTime();
      if (!Number.isNaN(ms)) return isoString(ms);
    }
    return GraphQLDateTimeISO.serialize(value);
  },
});
