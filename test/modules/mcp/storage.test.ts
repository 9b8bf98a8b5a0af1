/**
 * A database that cannot be written, through MCP: the tool error says storage_unavailable, as
 * the API's 503 does, not a generic internal error. The full disk is stood in for as in
 * test/http/storage-down.test.ts (`PRAGMA max_page_count` on the app's one connection).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp({ SLINK_RATE_LIMIT: '100000' });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
});

afterAll(async () => {
  await disposeTestApp(t);
});

function pragma(sql: string): number {
  return Object.values(t.deps.db.$client.query(`PRAGMA ${sql}`).get() as Record<string, number>)[0]!;
}

test('create_link on a full database: a tool error with storage_unavailable', async () => {
  const { key } = await makeKey(t, 'write');
  const client = new Client({ name: 'slink-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.app.server!.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  t.deps.db.$client.exec('VACUUM');
  pragma(`max_page_count = ${pragma('page_count')}`);
  // ~8 KB of params: the row needs overflow pages the file may not grow by.
  const params = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));
  const result = await client.callTool({
    name: 'create_link',
    arguments: { destination: 'https://example.com/full', params },
  });
  pragma('max_page_count = 1073741823');
  expect(result.isError).toBe(true);
  expect((result.structuredContent as any).error.code).toBe('storage_unavailable');
  expect(t.errors.some((line) => line.startsWith('storage unavailable in MCP tool create_link'))).toBe(true);
  t.errors.length = 0;
  await client.close();
});
