/**
 * Password checks held open by the test (the verification slots, not argon2id, are under test):
 * every check the app starts waits until the test answers it. The test waits for what it reads
 * (a check started, a count reached), never for a length of time.
 */
import type { TestApp } from './app';

export interface HeldCheck {
  password: string;
  /** Ends the check (once): the password was right or not. */
  answer(right: boolean): void;
}

export interface HeldChecks {
  /** Checks running now, and the most that ever ran at once. */
  readonly running: number;
  readonly most: number;
  /** Checks started so far. */
  readonly started: number;
  /** The checks started and not answered yet, oldest first. */
  open(): HeldCheck[];
  /** The `n`-th check to start (from 0), once it has started. */
  nth(n: number): Promise<HeldCheck>;
  /** Answers every open check and every later one at once, by `right`. */
  answerAll(right: (password: string) => boolean): void;
}

export function holdChecks(t: TestApp): HeldChecks {
  const all: (HeldCheck & { done: boolean })[] = [];
  const waiters: { n: number; resolve: (check: HeldCheck) => void }[] = [];
  let auto: ((password: string) => boolean) | null = null;
  let running = 0;
  let most = 0;
  t.deps.verifyPassword = (password) =>
    new Promise<boolean>((resolve) => {
      running++;
      most = Math.max(most, running);
      const check = {
        password,
        done: false,
        answer: (right: boolean) => {
          if (check.done) return;
          check.done = true;
          running--;
          resolve(right);
        },
      };
      all.push(check);
      for (const w of waiters.filter((w) => w.n === all.length - 1)) w.resolve(check);
      if (auto) check.answer(auto(password));
    });
  return {
    get running() {
      return running;
    },
    get most() {
      return most;
    },
    get started() {
      return all.length;
    },
    open: () => all.filter((c) => !c.done),
    nth: (n) => (n < all.length ? Promise.resolve(all[n]!) : new Promise((resolve) => waiters.push({ n, resolve }))),
    answerAll: (right) => {
      auto = right;
      for (const check of all) check.answer(right(check.password));
    },
  };
}

/** Resolves once `n` of `requests` have settled (in whatever order), with those that did. */
export function firstSettled<T>(requests: Promise<T>[], n: number): Promise<T[]> {
  const settled: T[] = [];
  return new Promise((resolve, reject) => {
    for (const request of requests)
      request.then((value) => {
        settled.push(value);
        if (settled.length === n) resolve([...settled]);
      }, reject);
  });
}

/** Waits until `read()` holds, looking again after each turn of the event loop: bounded by the test's timeout, not here. */
export async function until(read: () => boolean): Promise<void> {
  while (!read()) await Bun.sleep(1);
}
