/** Asserts a response body against the very schema its route declares. */
import { expect } from 'bun:test';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { STATUS_BY_CODE } from '../../src/http/errors';
import { ErrorModel } from '../../src/http/models';
import type { ApiResult } from './app';

export function expectSchema(schema: TSchema, value: unknown): void {
  const problems = [...Value.Errors(schema, value)].map((e) => `${e.path || '/'}: ${e.message}`);
  expect(problems).toEqual([]);
}

/** The object has exactly these keys: nothing missing, nothing extra. */
export function expectExactKeys(value: object, keys: readonly string[]): void {
  expect(Object.keys(value).sort()).toEqual([...keys].sort());
}

/** Exactly {error:{code,message,field}}, JSON, with the status the code maps to. */
export function expectErrorShape(res: ApiResult): void {
  expect(res.headers.get('content-type')).toContain('application/json');
  expectSchema(ErrorModel, res.body);
  expectExactKeys(res.body, ['error']);
  expectExactKeys(res.body.error, ['code', 'message', 'field']);
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(STATUS_BY_CODE[res.body.error.code as keyof typeof STATUS_BY_CODE]).toBe(res.status);
}

/** The documented error response: this status and code, the field when given, the exact shape. */
export function expectError(res: ApiResult, status: number, code: string, field?: string | null): void {
  const got = { status: res.status, code: res.body?.error?.code, field: res.body?.error?.field };
  expect(field === undefined ? { ...got, field: undefined } : got).toEqual({ status, code, field });
  expectErrorShape(res);
}
