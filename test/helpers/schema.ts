/** Asserts a response body against the very schema its route declares. */
import { expect } from 'bun:test';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export function expectSchema(schema: TSchema, value: unknown): void {
  const problems = [...Value.Errors(schema, value)].map((e) => `${e.path || '/'}: ${e.message}`);
  expect(problems).toEqual([]);
}

/** The object has exactly these keys: nothing missing, nothing extra. */
export function expectExactKeys(value: object, keys: readonly string[]): void {
  expect(Object.keys(value).sort()).toEqual([...keys].sort());
}
