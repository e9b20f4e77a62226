import type fc from 'fast-check';
import { deepMark, fitsInBody, fuzzParameters, toJson } from './fuzz-support';

/** A failing case is reported whatever it holds: the report must not itself fail on a case too large or too deep. */
describe('fuzz failure reports', () => {
  const report = (counterexample: unknown, errorInstance: unknown = new Error('boom')) =>
    fuzzParameters<unknown[]>(1).asyncReporter!({
      failed: true,
      numRuns: 3,
      seed: 7,
      counterexample: [counterexample],
      errorInstance,
    } as unknown as fc.RunDetails<unknown[]>);

  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  /** Six billion characters as JSON: over the longest string V8 builds. */
  const huge = { deep: deepMark(1_000_000_000, false), text: 'x'.repeat(1000) };

  it.each([
    ['nested 100,000 deep', deep],
    ['too long to be a string', huge],
  ])('a counterexample %s: reported, cut, with the seed', async (_, value) => {
    expect(() => toJson(value)).toThrow(RangeError); // what the report used to print it with
    const error = (await report(value).then(
      () => null,
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RangeError);
    expect(error.message).toMatch(/^fuzz failed after 3 cases; rerun with FUZZ_SEED=7\ncause: boom\n/);
    expect(error.message.length).toBeLessThan(4000);
  });

  it("names the cause's cause: a fetch failure says why the connection failed", async () => {
    const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    await expect(report({ a: 1 }, new TypeError('fetch failed', { cause }))).rejects.toThrow(
      'cause: fetch failed; cause: other side closed (UND_ERR_SOCKET)\ncounterexample (cut): [{"a":1}]',
    );
  });

  it('a case too large to write as a body does not fit, and does not throw', () => {
    expect(fitsInBody(huge, 32 * 1024 * 1024)).toBe(false);
    expect(fitsInBody({ query: '{ a }' }, 32)).toBe(true);
  });
});
