import { RequestLifetime, type RequestClient } from '../../src/db/request-bound';

/** A client whose leaving the test decides; counts the watches started and stopped. */
class FakeClient implements RequestClient {
  left = false;
  watching = 0;
  private onGone?: () => void;

  gone(): boolean {
    return this.left;
  }

  watch(onGone: () => void): () => void {
    this.watching++;
    this.onGone = onGone;
    return () => {
      this.watching--;
      this.onGone = undefined;
    };
  }

  leave(): void {
    this.left = true;
    this.onGone?.();
  }
}

const codeOf = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return (error as { extensions?: { code?: string } }).extensions?.code;
  }
  return 'none';
};

describe('RequestLifetime', () => {
  it('watches its client only once its signal is asked for, and stops watching on release', () => {
    const client = new FakeClient();
    const lifetime = new RequestLifetime(60_000, client);
    expect(client.watching).toBe(0);
    const { signal } = lifetime;
    expect(client.watching).toBe(1);
    client.leave();
    expect(signal.aborted).toBe(true);
    expect((signal.reason as { extensions: { code: string } }).extensions.code).toBe('REQUEST_CANCELLED');
    lifetime.release();
    expect(client.watching).toBe(0);
  });

  it('a check sees a client that left, with no signal made', () => {
    const client = new FakeClient();
    const lifetime = new RequestLifetime(60_000, client);
    expect(codeOf(() => lifetime.check())).toBe('none');
    client.left = true;
    expect(codeOf(() => lifetime.check())).toBe('REQUEST_CANCELLED');
    // A signal asked for afterwards is already aborted, and starts no watch.
    expect(lifetime.signal.aborted).toBe(true);
    expect(client.watching).toBe(0);
    lifetime.release();
  });

  it('a check past the deadline throws TIMEOUT, and the first reason stays', async () => {
    const client = new FakeClient();
    const lifetime = new RequestLifetime(20, client);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(codeOf(() => lifetime.check())).toBe('TIMEOUT');
    client.left = true;
    expect(codeOf(() => lifetime.check())).toBe('TIMEOUT');
    lifetime.release();
  });

  it('a signal asked for before the deadline is aborted by its timer with TIMEOUT', async () => {
    const lifetime = new RequestLifetime(30);
    const { signal } = lifetime;
    expect(signal.aborted).toBe(false);
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    expect((signal.reason as { extensions: { code: string } }).extensions.code).toBe('TIMEOUT');
    lifetime.release();
  });
});
