/**
 * A tool's input as the API reads its route's: the TypeBox schema's defaults filled in, unknown
 * fields dropped (the app's normalize: 'typebox'), then checked; a failure is the API's 400
 * invalid_request naming the field. Its JSON Schema is what tools/list shows.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { validationToAppError } from '../../http/errors';

export function readInput(schema: TObject, args: Record<string, unknown> | undefined): unknown {
  const value = Value.Clean(schema, Value.Default(schema, structuredClone(args ?? {})));
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  throw validationToAppError({ type: 'body', valueError: first, all: first ? [first] : [] });
}

/** The API's JSON of a result: what its route's response schema keeps of it (Elysia cleans it the same way). */
export function outputOf(schema: TSchema, result: unknown): Record<string, unknown> {
  return Value.Clean(schema, JSON.parse(JSON.stringify(result))) as Record<string, unknown>;
}

/** A TypeBox schema as plain JSON Schema: its symbols and `error` functions do not survive JSON. */
export function jsonSchemaOf(schema: TObject): { type: 'object'; [key: string]: unknown } {
  return JSON.parse(JSON.stringify(schema));
}
