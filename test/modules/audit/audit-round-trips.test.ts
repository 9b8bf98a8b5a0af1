/**
 * On PostgreSQL an audit entry costs its change no round trip: its insert is issued while the
 * change's own statement is in flight (pipelined on the transaction's connection), or is part of
 * the change's single statement (projects, webhooks: one statement by construction). Counted
 * here as the client sees it, in the write transactions (`counter` says how).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Pg } from '../../../src/db/postgres/client';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

/**
 * A statement sent with nothing in flight, or after an answer came back since the last one was
 * sent (it may have waited for it), starts a round trip; one sent beside others in flight and
 * before any of their answers rides along with them.
 */
const counter = { rounds: 0, inFlight: 0, answered: false };

/** A statement object whose sending (its first `then`) is counted. */
function counted<T extends object>(query: T): T {
  let sent = false;
  return new Proxy(query, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== 'then' || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return (onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) => {
        if (!sent) {
          sent = true;
          if (counter.inFlight === 0 || counter.answered) counter.rounds++;
          counter.answered = false;
          counter.inFlight++;
          const settle = () => {
            counter.inFlight--;
            counter.answered = true;
          };
          (value as (a: unknown, b: unknown) => Promise<unknown>).call(target, settle, settle);
        }
        return (value as (a: unknown, b: unknown) => Promise<unknown>).call(target, onFulfilled, onRejected);
      };
    },
  });
}

/** Every statement of a transaction, counted. */
function countingTx(tx: Pg): Pg {
  return new Proxy(tx, {
    apply(target, self, args) {
      const query = Reflect.apply(target, self, args);
      return typeof query === 'object' && query !== null ? counted(query) : query;
    },
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The pool with its transactions' statements counted (the writes; reads outside them are not). */
function counting(sql: Pg): Pg {
  return new Proxy(sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === 'begin')
        return (...args: unknown[]) => {
          const work = args.at(-1) as (tx: Pg) => Promise<unknown>;
          return (value as (...a: unknown[]) => Promise<unknown>).call(target, ...args.slice(0, -1), (tx: Pg) =>
            work(countingTx(tx)),
          );
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await makeTestApp({}, { engine: 'postgres', wrapPostgres: counting });
  key = (await makeKey(t, 'write', { superuser: true })).key;
});
afterAll(() => disposeTestApp(t));

/** The round trips of one request, from the first statement to the answer. */
async function roundsOf(call: () => Promise<unknown>): Promise<number> {
  counter.rounds = 0;
  await call();
  return counter.rounds;
}

test('a link change takes as many round trips with its entry as without', async () => {
  const link = await apiExpecting(t, key, 'POST', '/links', { destination: 'https://example.com/rt' });
  const writes = t.deps.stores.linkWrites;
  const audited = writes.update.bind(writes);
  const patch = (n: number) => () => apiExpecting(t, key, 'PATCH', `/links/${link.id}`, { title: `T${n}` });
  const withEntry: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < 4; i++) {
    writes.update = audited;
    withEntry.push(await roundsOf(patch(2 * i)));
    writes.update = (updates, at) => audited(updates, at);
    without.push(await roundsOf(patch(2 * i + 1)));
  }
  writes.update = audited;
  expect(withEntry).toEqual(without);
  expect(without[0]).toBeGreaterThan(1);
  const page = await apiExpecting(t, key, 'GET', `/audit?targetId=${link.id}&action=link.update`);
  expect(page.items).toHaveLength(4);
});
