/**
 * Requests and answers over a Worker's postMessage, typed by the handlers the Worker serves.
 * The main thread `call`s (a promise of the handler's result, rejected with the error it threw)
 * or `post`s (no answer); the Worker `serve`s its handlers. Messages are taken in the order they
 * were sent. A Worker that crashes or exits fails every call still waiting, and every later one.
 */

/** A handler's result sent with these buffers moved to the caller, not copied. */
export class Transfer<T> {
  constructor(
    readonly value: T,
    readonly list: Bun.Transferable[],
  ) {}
}

/** Handlers by message type: each takes at most one payload (structured-cloneable). */
type Handlers = Record<string, (payload: never) => unknown>;
type PayloadOf<F> = F extends () => unknown ? undefined : F extends (payload: infer P) => unknown ? P : never;
type Unwrap<T> = T extends Transfer<infer V> ? V : T;
type AnswerOf<F> = F extends (payload: never) => infer R ? Unwrap<Awaited<R>> : never;
type PostArgs<F> = PayloadOf<F> extends undefined ? [] : [payload: PayloadOf<F>, transfer?: Bun.Transferable[]];
type CallArgs<F> =
  PayloadOf<F> extends undefined
    ? [payload?: undefined, transfer?: Bun.Transferable[]]
    : [payload: PayloadOf<F>, transfer?: Bun.Transferable[]];

/** What crosses: a request (id 0: no answer wanted), and the answer to a call. */
interface Request {
  id: number;
  type: string;
  payload: unknown;
}
type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ErrorFacts };

/**
 * What the caller learns of an error thrown in the Worker: an Error does not cross postMessage
 * whole, and the log line (lib/errors.ts describeError) and the storage checks (db/storage.ts)
 * read its name, codes and stack.
 */
interface ErrorFacts {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  errno?: string;
}

function factsOf(err: unknown): ErrorFacts {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const { code, errno } = err as { code?: unknown; errno?: unknown };
  return {
    name: err.name,
    message: err.message,
    stack: err.stack,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof errno === 'string' ? { errno } : {}),
  };
}

/** The Worker's error again, with the frames of the Worker's stack (where it was thrown). */
function errorOf(facts: ErrorFacts): Error {
  const { name, message, stack, code, errno } = facts;
  const error = Object.assign(new Error(message), { ...(code ? { code } : {}), ...(errno ? { errno } : {}) });
  error.name = name;
  if (stack) error.stack = stack;
  return error;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The main thread's end of one Worker. */
export class WorkerClient<H extends Handlers> {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private stopped: Error | null = null;

  /**
   * `name` starts the errors of a Worker that dies ("the click writer crashed: ..."); `onDeath`
   * hears of such a death, never of a close().
   */
  constructor(
    private readonly worker: Worker,
    name: string,
    onDeath?: (error: Error) => void,
  ) {
    worker.onmessage = (event: MessageEvent<Answer>) => {
      const answer = event.data;
      const waiter = this.waiting.get(answer.id);
      if (!waiter) return;
      this.waiting.delete(answer.id);
      if (answer.ok) waiter.resolve(answer.value);
      else waiter.reject(errorOf(answer.error));
    };
    const died = (error: Error) => {
      if (this.stopped) return;
      this.close(error);
      onDeath?.(error);
    };
    worker.onerror = (event) => died(new Error(`${name} crashed: ${event.message}`));
    worker.addEventListener('close', () => died(new Error(`${name} exited`)));
  }

  // call() and post() are typed by an overload and take plain parameters, not a rest array:
  // post() hands over every slice of clicks.

  /** Runs the handler `type` in the Worker; `transfer` moves those buffers there. */
  call<K extends keyof H & string>(type: K, ...args: CallArgs<H[K]>): Promise<AnswerOf<H[K]>>;
  call(type: string, payload?: unknown, transfer: Bun.Transferable[] = []): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, payload } satisfies Request, transfer);
    });
  }

  /** Runs the handler `type` in the Worker without waiting for it; nothing once stopped. `transfer` moves those buffers there. */
  post<K extends keyof H & string>(type: K, ...args: PostArgs<H[K]>): void;
  post(type: string, payload?: unknown, transfer: Bun.Transferable[] = []): void {
    if (this.stopped) return;
    this.worker.postMessage({ id: 0, type, payload } satisfies Request, transfer);
  }

  /** Terminates the Worker; calls waiting, and later ones, fail with `error`. */
  close(error: Error): void {
    if (this.stopped) return;
    this.stopped = error;
    this.worker.terminate();
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

declare const self: Worker;

/**
 * The Worker's end: runs the handler each message names and answers calls with its result, or
 * with the facts of the error it threw (ErrorFacts). An error in a posted message's handler is the
 * Worker's own: it crashes the Worker, like any uncaught error.
 */
export function serve(handlers: Handlers): void {
  const run = handlers as Record<string, (payload: unknown) => unknown>;
  const fail = (id: number, err: unknown) => self.postMessage({ id, ok: false, error: factsOf(err) } satisfies Answer);
  const answer = (id: number, result: unknown) => {
    if (result instanceof Transfer)
      self.postMessage({ id, ok: true, value: result.value } satisfies Answer, result.list);
    else self.postMessage({ id, ok: true, value: result } satisfies Answer);
  };
  self.onmessage = (event: MessageEvent<Request>) => {
    const { id, type, payload } = event.data;
    const handler = run[type];
    if (id === 0) {
      if (!handler) throw new Error(`no handler for "${type}"`);
      handler(payload);
      return;
    }
    let result: unknown;
    try {
      if (!handler) throw new Error(`no handler for "${type}"`);
      result = handler(payload);
    } catch (err) {
      fail(id, err);
      return;
    }
    if (result instanceof Promise)
      result.then(
        (value) => answer(id, value),
        (err) => fail(id, err),
      );
    else answer(id, result);
  };
}
