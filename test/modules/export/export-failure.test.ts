/**
 * A read that fails in the middle of GET /export (docs/behaviour.md, "Export"): the lines already
 * sent stay whole, and the response is aborted before the chunked body's end, so the client's
 * read fails instead of ending as if the file were complete; the server logs why. The failure
 * is a real one: a table of the raw clicks is renamed away before the export, so the click lines'
 * reads fail (in the export Worker, on its own connection) after the header, domain and link lines. On
 * both engines (each has its own connection in the Worker).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { disposeTestApp, T0 } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { storedRows } from '../../helpers/stored';
import { type Ctx, clickRequest, createLink, flushOk, setup } from '../clicks/support';

forEachEngine((engine) => {
  let c: Ctx;
  let base: string;

  beforeAll(async () => {
    c = await setup({}, engine);
    c.t.clock.set(T0);
    c.t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
    base = `http://127.0.0.1:${c.t.app.server!.port}/api/v1`;
    const link = await createLink(c, { destination: 'https://example.com/failing' });
    for (let i = 0; i < 3; i++) {
      c.t.clock.set(T0 + i * 1000);
      await (await c.t.app.handle(clickRequest(`/${link.slug}`))).arrayBuffer();
    }
    await flushOk(c.t);
  });
  afterAll(() => disposeTestApp(c.t));

  // A table the Worker's click reads need and nothing before them does.
  const table = engine === 'sqlite' ? 'click_segments' : 'click_blocks';

  test('a read failing mid-export aborts the response: whole lines so far, then an error the client sees', async () => {
    await storedRows(c.t, `ALTER TABLE ${table} RENAME TO gone_away`);
    let received = '';
    let failure: unknown = null;
    try {
      // Failing early, the response may be aborted before its status is sent: fetch fails then.
      const res = await fetch(`${base}/export?clicks=1`, { headers: { authorization: `Bearer ${c.key}` } });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) received += decoder.decode(r.value);
    } catch (err) {
      failure = err;
    } finally {
      await storedRows(c.t, `ALTER TABLE gone_away RENAME TO ${table}`);
    }
    expect(failure).not.toBeNull();
    // What arrived, if anything, is whole lines, of the header, the domain and the link: no click line.
    if (received !== '') expect(received.endsWith('\n')).toBe(true);
    const types = received
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(['export', 'domain', 'link'].slice(0, types.length)).toEqual(types);
    // The server says why.
    expect(
      c.t.errors.some((e) => /^the workspace export failed after \d+ bytes: .*(click_segments|click_blocks)/.test(e)),
    ).toBe(true);
    c.t.errors.length = 0;
    // The next export reads again, whole.
    const again = await fetch(`${base}/export?clicks=1`, { headers: { authorization: `Bearer ${c.key}` } });
    const lines = (await again.text()).trim().split('\n');
    expect(lines.filter((l) => l.includes('"type":"click"'))).toHaveLength(3);
  });
});
