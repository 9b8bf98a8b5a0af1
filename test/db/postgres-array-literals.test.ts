/**
 * The array literals the click writer and the fold send instead of `sql.array` (db/postgres/client.ts:
 * intList, intOrNullList, textList), read back by a real server element for element: text that
 * needs quoting (quotes, backslashes, commas, braces, spaces, the word NULL, empty, any script)
 * comes back as it was sent, and so do integers up to 2^53 and nulls.
 */
import { afterAll, expect, test } from 'bun:test';
import { intList, intOrNullList, openPostgres, textList } from '../../src/db/postgres/client';
import { freshPostgresUrl } from '../helpers/postgres';

const sql = openPostgres(await freshPostgresUrl(), 1);
afterAll(() => sql.close());

test('text in an array literal comes back from the server as it was sent', async () => {
  const texts = [
    'lnk_01JXYZ-abc.def:1',
    'NULL',
    'null',
    '',
    ' ',
    'a,b',
    '{braces}',
    'say "hi"',
    'back\\slash',
    '\\"',
    'tab\tand\nnewline',
    'ünïcödé 🙂 例え',
  ];
  const [row] = await sql`SELECT ${textList(texts)}::text[] AS a`;
  expect(row.a).toEqual(texts);
  const [empty] = await sql`SELECT cardinality(${textList([])}::text[]) AS n`;
  expect(empty.n).toBe(0);
});

test('integers and nulls in array literals come back as they were sent', async () => {
  const ints = [0, -1, 2_147_483_647, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
  const [row] =
    await sql`SELECT ${intList(ints)}::int8[]::text[] AS a, ${intOrNullList([1, null, -3, null])}::int8[]::text[] AS b`;
  expect(row.a.map(Number)).toEqual(ints);
  expect(row.b).toEqual(['1', null, '-3', null]);
});
