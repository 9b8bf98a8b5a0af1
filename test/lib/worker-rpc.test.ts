/**
 * The Worker request/answer helper on a real Worker: answers and errors reach the caller,
 * messages keep their order, buffers move instead of being copied, and a Worker that dies or is
 * closed fails every call still waiting and every later one. An error keeps its name, code and
 * stack.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { storageFailure } from '../../src/db/storage';
import { WorkerClient } from '../../src/lib/worker-rpc';
import type { TestHandlers } from './rpc-worker';

const clients: WorkerClient<TestHandlers>[] = [];
function start(onDeath?: (error: Error) => void): WorkerClient<TestHandlers> {
  const client = new WorkerClient<TestHandlers>(
    new Worker(new URL('./rpc-worker.ts', import.meta.url).href),
    'the test worker',
    onDeath,
  );
  clients.push(client);
  return client;
}
afterEach(() => {
  for (const client of clients.splice(0)) client.close(new Error('test over'));
});

describe('WorkerClient and serve', () => {
  test('a call resolves with what the handler returned, sync or async, in any order', async () => {
    const rpc = start();
    const slow = rpc.call('later', 30);
    expect(await rpc.call('echo', 'hello')).toBe('hello');
    expect(await slow).toBe(30);
  });

  test("a handler's error rejects its call with the same message; the Worker keeps serving", async () => {
    const rpc = start();
    await expect(rpc.call('fail', 'no such export')).rejects.toThrow('no such export');
    await expect(rpc.call('failLater', 'disk full')).rejects.toThrow('disk full');
    expect(await rpc.call('echo', 'still here')).toBe('still here');
  });

  test('the error keeps its name, its code and where the Worker threw it (the log line and the storage checks read them)', async () => {
    const rpc = start();
    const err = (await rpc.call('failWithCode', 'SQLITE_FULL').catch((e: unknown) => e)) as Error & { code?: string };
    expect({ name: err.name, code: err.code, message: err.message }).toEqual({
      name: 'SQLiteError',
      code: 'SQLITE_FULL',
      message: 'the write failed',
    });
    expect(err.stack).toContain('rpc-worker.ts');
    expect(storageFailure(err)).toBe('database or disk full');
  });

  test('posts and calls are handled in the order they were sent', async () => {
    const rpc = start();
    rpc.post('note', 'a');
    rpc.post('note', 'b');
    const first = rpc.call('notes');
    rpc.post('note', 'c');
    expect(await first).toEqual(['a', 'b']);
    expect(await rpc.call('notes')).toEqual(['c']);
  });

  test('a buffer sent is moved, not copied; a buffer answered with Transfer arrives whole', async () => {
    const rpc = start();
    const buffer = new ArrayBuffer(1024);
    const answer = rpc.call('bytes', buffer, [buffer]);
    // Moved: the sender's buffer is detached at once.
    expect(buffer.byteLength).toBe(0);
    const { received, buffer: back } = await answer;
    expect(received).toBe(1024);
    expect(back.byteLength).toBe(2048);
  });

  test('a Worker that dies fails the calls waiting and every later one, and says so once', async () => {
    const deaths: string[] = [];
    const rpc = start((error) => deaths.push(error.message));
    const waiting = rpc.call('later', 5_000);
    rpc.post('crash');
    await expect(waiting).rejects.toThrow(/^the test worker crashed: /);
    await expect(rpc.call('echo', 'anyone?')).rejects.toThrow(/^the test worker crashed: /);
    rpc.post('note', 'nobody hears this');
    expect(deaths).toHaveLength(1);
    expect(deaths[0]).toContain('on purpose');
  });

  test('close() fails the calls waiting and every later one with its error, and is not a death', async () => {
    const deaths: Error[] = [];
    const rpc = start((error) => deaths.push(error));
    const waiting = rpc.call('later', 5_000);
    rpc.close(new Error('the server is stopping'));
    await expect(waiting).rejects.toThrow('the server is stopping');
    await expect(rpc.call('echo', 'x')).rejects.toThrow('the server is stopping');
    await Bun.sleep(50);
    expect(deaths).toEqual([]);
  });
});
