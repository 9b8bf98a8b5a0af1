/** The Worker of worker-rpc.test.ts: a few handlers that answer, fail, wait, crash or move buffers. */
import { serve, Transfer } from '../../src/lib/worker-rpc';

let log: string[] = [];

const handlers = {
  echo: (text: string): string => text,
  note(text: string): void {
    log.push(text);
  },
  notes(): string[] {
    const notes = log;
    log = [];
    return notes;
  },
  fail(message: string): never {
    throw new Error(message);
  },
  /** A storage failure as bun:sqlite throws it: a name and a code of its own. */
  failWithCode(code: string): never {
    throw Object.assign(new Error('the write failed'), { name: 'SQLiteError', code });
  },
  later: async (ms: number): Promise<number> => {
    await Bun.sleep(ms);
    return ms;
  },
  failLater: async (message: string): Promise<never> => {
    await Bun.sleep(1);
    throw new Error(message);
  },
  /** Posted: an uncaught error, the Worker dies. */
  crash(): void {
    throw new Error('on purpose');
  },
  /** Answers how many bytes arrived, with a buffer twice that size moved (not copied) back. */
  bytes(buffer: ArrayBuffer): Transfer<{ received: number; buffer: ArrayBuffer }> {
    const back = new ArrayBuffer(buffer.byteLength * 2);
    return new Transfer({ received: buffer.byteLength, buffer: back }, [back]);
  },
};
export type TestHandlers = typeof handlers;

serve(handlers);
