/**
 * /mcp through the SDK's own client against the app listening on a real port (SQLite: the
 * engine does not matter here, the services are the API's): the handshake, the tools each kind
 * of key sees, calls answering the API's JSON, refusals as tool errors, the edge (no key, a
 * session, a foreign Origin) and the audit trail.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey, revokeApiKey } from '../../../src/modules/auth/keys';
import { MCP_TOOL_NAMES } from '../../../src/modules/mcp/public';
import { api, apiExpecting, disposeTestApp, makeAccount, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { sessionFor } from '../../helpers/session';

let t: TestApp;
let base: string;
let admin: string;
const keys: Record<'write' | 'read' | 'create' | 'viewer' | 'limited', string> = {} as never;
let outside: { id: string; slug: string };

const READS = ['get_link', 'list_links', 'link_stats', 'workspace_stats', 'list_clicks', 'list_domains'];

async function connect(key: string | null): Promise<Client> {
  const client = new Client({ name: 'slink-test', version: '1.0.0' });
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A tool call's answer, with its JSON (text content and structuredContent) checked to agree. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    structuredContent: any;
    isError?: boolean;
  };
  expect(result.content).toHaveLength(1);
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return { json: result.structuredContent, isError: result.isError === true };
}

/** A raw JSON-RPC POST to /mcp, for what the SDK client would not send. */
function post(headers: Record<string, string>) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
}

beforeAll(async () => {
  t = await makeTestApp({ SLINK_RATE_LIMIT: '100000' });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  admin = (await makeKey(t, 'write', { superuser: true })).key;
  keys.write = (await makeKey(t, 'write')).key;
  keys.read = (await makeKey(t, 'read')).key;
  keys.create = (await makeKey(t, 'create')).key;
  const viewer = await makeAccount(t, { role: 'viewer' });
  keys.viewer = (await createApiKey(t.deps, { accountId: viewer.id, scope: 'read', name: 'viewer key' })).key;
  const mine = await apiExpecting(t, admin, 'POST', '/projects', { name: 'Mine' });
  const theirs = await apiExpecting(t, admin, 'POST', '/projects', { name: 'Theirs' });
  const limited = await makeAccount(t);
  keys.limited = (
    await createApiKey(t.deps, { accountId: limited.id, scope: 'read', name: 'limited', projects: [mine.id] })
  ).key;
  outside = await apiExpecting(t, admin, 'POST', '/links', {
    destination: 'https://example.com/theirs',
    projectId: theirs.id,
  });
});

afterAll(async () => {
  await disposeTestApp(t);
});

describe('MCP handshake and tool lists', () => {
  test('initialize names the server and its tools capability; ping answers', async () => {
    const client = await connect(keys.write);
    expect(client.getServerVersion()?.name).toBe('slink');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(await client.ping()).toEqual({});
    await client.close();
  });

  test('tools/list gives each key the tools it may use', async () => {
    const names = async (key: string) => (await (await connect(key)).listTools()).tools.map((tool) => tool.name);
    expect(await names(keys.write)).toEqual(['create_link', 'update_link', ...READS]);
    expect(await names(keys.read)).toEqual(READS);
    expect(await names(keys.create)).toEqual(['create_link']);
    expect(await names(keys.viewer)).toEqual(READS);
  });

  test("a tool's input schema is the API's, with the path id added", async () => {
    const tools = (await (await connect(keys.write)).listTools()).tools;
    const update = tools.find((tool) => tool.name === 'update_link')!;
    expect(update.inputSchema.type).toBe('object');
    expect(Object.keys(update.inputSchema.properties!)).toEqual(expect.arrayContaining(['id', 'destination', 'slug']));
    expect(update.inputSchema.required).toEqual(['id']);
    const create = tools.find((tool) => tool.name === 'create_link')!;
    expect(create.inputSchema.required).toEqual(['destination']);
  });
});

describe('MCP tools', () => {
  test('create_link through a write key: the link redirects, link_stats and get_link answer the API’s JSON', async () => {
    const client = await connect(keys.write);
    const created = await call(client, 'create_link', { destination: 'https://example.com/from-mcp' });
    expect(created.isError).toBe(false);
    expect(created.json.destination).toBe('https://example.com/from-mcp');
    const { id, slug } = created.json;
    expect(created.json).toEqual(await apiExpecting(t, keys.write, 'GET', `/links/${id}`));

    const visit = await fetch(`${base}/${slug}`, { redirect: 'manual' });
    expect(visit.headers.get('location')).toBe('https://example.com/from-mcp');
    expect(visit.status).toBe(302);

    const stats = await call(client, 'link_stats', { id, range: '7d' });
    expect(stats.isError).toBe(false);
    expect(stats.json).toEqual(await apiExpecting(t, keys.write, 'GET', `/links/${id}/stats?range=7d`));
    expect((await call(client, 'get_link', { id })).json).toEqual(created.json);

    const updated = await call(client, 'update_link', { id, title: 'Named by MCP' });
    expect(updated.json.title).toBe('Named by MCP');
    await client.close();
  });

  test('an MCP change is audited with via "mcp"', async () => {
    const client = await connect(keys.write);
    const { json } = await call(client, 'create_link', { destination: 'https://example.com/audited' });
    const page = await apiExpecting(t, admin, 'GET', `/audit?targetId=${json.id}`);
    expect(page.items.map((entry: any) => [entry.action, entry.via])).toEqual([['link.create', 'mcp']]);
    await client.close();
  });

  test('a read key calling create_link gets a tool error: insufficient_scope', async () => {
    const client = await connect(keys.read);
    const refused = await call(client, 'create_link', { destination: 'https://example.com/refused' });
    expect(refused.isError).toBe(true);
    expect(refused.json.error.code).toBe('insufficient_scope');
    expect(typeof refused.json.error.message).toBe('string');
  });

  test('a key limited to projects gets not_found for a link outside them', async () => {
    const client = await connect(keys.limited);
    const hidden = await call(client, 'get_link', { id: outside.id });
    expect(hidden).toEqual({
      isError: true,
      json: { error: { code: 'not_found', message: expect.any(String), field: null } },
    });
    expect((await call(client, 'link_stats', { id: outside.id })).json.error.code).toBe('not_found');
    expect((await call(client, 'list_links')).json).toEqual({ items: [], cursor: null });
  });

  test('bad input is the API’s invalid_request naming the field', async () => {
    const client = await connect(keys.write);
    const bad = await call(client, 'list_links', { limit: 1000 });
    expect(bad.isError).toBe(true);
    expect(bad.json.error).toMatchObject({ code: 'invalid_request', field: 'limit' });
    const noDestination = await call(client, 'create_link', {});
    expect(noDestination.json.error).toMatchObject({ code: 'invalid_request', field: 'destination' });
  });
});

describe('the MCP edge', () => {
  test('no key: 401 key_missing with the API’s error body', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'key_missing', field: null });
    await expect(connect(null)).rejects.toThrow();
  });

  test('a revoked key: 401 key_revoked, as on the API', async () => {
    const made = await makeKey(t, 'read');
    expect((await post({ authorization: `Bearer ${made.key}` })).status).toBe(200);
    await revokeApiKey(t.deps, made.keyId);
    const res = await post({ authorization: `Bearer ${made.key}` });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('key_revoked');
  });

  test('a foreign Origin is 403; the app host’s own Origin and none are served', async () => {
    const foreign = await post({ authorization: `Bearer ${keys.read}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as any).error.code).toBe('csrf_rejected');
    const own = await post({ authorization: `Bearer ${keys.read}`, origin: 'https://app.sl.test' });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  test('a dashboard session is not accepted: a key only', async () => {
    const session = await sessionFor(t);
    // The same session is live on the API: it is /mcp that refuses it.
    expect((await api(t, 'GET', '/me', { headers: { cookie: session.cookie } })).status).toBe(200);
    const res = await post({ cookie: session.cookie, origin: 'https://app.sl.test' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('key_missing');
  });

  test('GET is 405 (stateless: no stream to open); requests count against the key’s rate limit', async () => {
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${keys.read}` } });
    expect(get.status).toBe(405);
    const first = await post({ authorization: `Bearer ${keys.viewer}` });
    const second = await post({ authorization: `Bearer ${keys.viewer}` });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });
});

describe('the MCP documentation', () => {
  test('docs/behaviour.md lists every tool, in order', async () => {
    const doc = await Bun.file(new URL('../../../docs/behaviour.md', import.meta.url)).text();
    const section = doc.slice(doc.indexOf('\n## MCP\n'), doc.indexOf('\n## Audit log\n'));
    const listed = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual([...MCP_TOOL_NAMES]);
  });
});

test('the API and MCP share a key’s rate limit: past it, /mcp is 429 rate_limited', async () => {
  const small = await makeTestApp({ SLINK_RATE_LIMIT: '2' });
  try {
    small.app.listen({ port: 0, hostname: '127.0.0.1' });
    const { key } = await makeKey(small, 'read');
    await apiExpecting(small, key, 'GET', '/links');
    const ping = () =>
      fetch(`http://127.0.0.1:${small.app.server!.port}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    expect((await ping()).status).toBe(200);
    const refused = await ping();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(((await refused.json()) as any).error.code).toBe('rate_limited');
  } finally {
    await disposeTestApp(small);
  }
});
