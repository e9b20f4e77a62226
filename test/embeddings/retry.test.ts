import { backoffDelayMs, withRetries } from '../../src/embeddings/retry';

describe('backoffDelayMs', () => {
  const policy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 8000 };

  test('doubles per retry up to the ceiling', () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelayMs(retry, policy, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
  });

  test('takes off at most 25% as jitter', () => {
    expect(backoffDelayMs(2, policy, () => 1)).toBe(750);
    expect(backoffDelayMs(2, policy, () => 0.5)).toBe(875);
  });
});

describe('withRetries', () => {
  const policy = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 };

  test('makes 1 + maxRetries attempts, then rethrows the last error', async () => {
    let attempts = 0;
    const retries: number[] = [];
    const run = withRetries(
      async () => {
        throw new Error(`failure ${++attempts}`);
      },
      policy,
      (_error, retry) => {
        retries.push(retry);
        return 1;
      },
    );
    await expect(run).rejects.toThrow('failure 3');
    expect(retries).toEqual([1, 2]);
  });

  test('stops at once when the error is not worth retrying', async () => {
    let attempts = 0;
    await expect(
      withRetries(
        async () => Promise.reject(new Error(`no ${++attempts}`)),
        policy,
        () => null,
      ),
    ).rejects.toThrow('no 1');
  });

  test('returns the first success', async () => {
    let attempts = 0;
    await expect(
      withRetries(
        async () => (++attempts < 2 ? Promise.reject(new Error('once')) : 'ok'),
        policy,
        () => 1,
      ),
    ).resolves.toBe('ok');
    expect(attempts).toBe(2);
  });
});
