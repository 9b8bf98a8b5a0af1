/**
 * What the import tests share: the app on loopback with an admin's key and the API called over
 * real HTTP (importApp), another Slink's export served over real HTTP (any NDJSON a test gives,
 * at a path of its own, optionally held after some lines until the test lets it go), the export
 * lines written as our export writes them, and a run waited for by reading it; the history
 * writer's tests' app and a source's visit (historyApp, sourceVisit).
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { createApiKey } from '../../../src/modules/auth/keys';
import type { SourceVisit } from '../../../src/modules/imports/public';
import {
  apiExpecting,
  disposeTestApp,
  makeAccount,
  makeKey,
  makeTestApp,
  type TestApp,
  type TestAppOptions,
} from '../../helpers/app';
import { waitUntil } from '../../helpers/wait';

/** An answer of the API: its status, its body (parsed when JSON) and its text. */
export interface Called {
  status: number;
  body: any;
  text: string;
}

export interface ImportApp {
  /** The app (made in beforeAll). */
  readonly t: TestApp;
  /** A call of /api/v1 over real HTTP with the admin's write key (a FormData body as multipart). */
  call(method: string, path: string, body?: unknown): Promise<Called>;
  /** POST /imports, answered 202 {id}: the run's id. */
  start(body: Record<string, unknown>): Promise<string>;
  /** Starts a run and reads it until it ended. */
  run(body: Record<string, unknown>): Promise<any>;
}

/**
 * A file's app for imports, made in beforeAll and disposed in afterAll (with the fakes given):
 * listening on loopback, where the sources' fakes answer (SLINK_UPSTREAM_ALLOW_PRIVATE=1), and
 * an admin's write key its calls carry. `prepare` runs once the app is made, before it listens;
 * `env` and `app` add to the app's configuration and options.
 */
export function importApp(
  options: {
    engine?: Engine;
    fakes?: readonly { stop(): unknown }[];
    prepare?: (t: TestApp) => void;
    env?: Record<string, string>;
    app?: Omit<TestAppOptions, 'engine'>;
  } = {},
): ImportApp {
  let t: TestApp | undefined;
  let base = '';
  let admin = '';
  beforeAll(async () => {
    t = await makeTestApp(
      { SLINK_UPSTREAM_ALLOW_PRIVATE: '1', ...options.env },
      { ...options.app, engine: options.engine },
    );
    options.prepare?.(t);
    t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
    base = `http://127.0.0.1:${t.app.server!.port}/api/v1`;
    const account = await makeAccount(t, { role: 'admin' });
    admin = (await createApiKey(t.deps, { accountId: account.id, scope: 'write' })).key;
  });
  afterAll(async () => {
    for (const fake of options.fakes ?? []) fake.stop();
    if (t) await disposeTestApp(t);
  });
  const call = async (method: string, path: string, body?: unknown): Promise<Called> => {
    const form = body instanceof FormData;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body && !form ? { 'content-type': 'application/json' } : {}),
      },
      body: form ? body : body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, text };
  };
  const start = async (body: Record<string, unknown>): Promise<string> => {
    const started = await call('POST', '/imports', body);
    expect({ status: started.status, body: started.body }).toEqual({ status: 202, body: { id: expect.any(String) } });
    return started.body.id;
  };
  return {
    get t() {
      if (t === undefined) throw new Error('the app is made in beforeAll');
      return t;
    },
    call,
    start,
    async run(body) {
      const id = await start(body);
      return ended(async () => (await call('GET', `/imports/${id}`)).body);
    },
  };
}

/** A visit as a source gives it: every field unknown (null) but its time and those given. */
export function sourceVisit(fields: Partial<SourceVisit> & { at: number }): SourceVisit {
  return {
    sourceId: null,
    referrer: null,
    userAgent: null,
    country: null,
    city: null,
    bot: null,
    device: null,
    os: null,
    browser: null,
    ...fields,
  };
}

export interface HistoryApp {
  /** The app (made in beforeAll). */
  readonly t: TestApp;
  /** A superuser's write key. */
  readonly key: string;
  /** Makes a link (through the API) to store history into; its id. */
  newLink(slug: string): Promise<string>;
}

/** A file's app for the history writer's tests, made in beforeAll and closed in afterAll. */
export function historyApp(engine?: Engine): HistoryApp {
  let t: TestApp | undefined;
  let key = '';
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    key = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterAll(async () => {
    await t?.close();
  });
  return {
    get t() {
      if (t === undefined) throw new Error('the app is made in beforeAll');
      return t;
    },
    get key() {
      return key;
    },
    async newLink(slug) {
      const body = { destination: 'https://example.com/landing?utm_medium=email', slug };
      return (await apiExpecting(this.t, key, 'POST', '/links', body)).id as string;
    },
  };
}

export interface Served {
  lines: string[];
  /** Lines sent before the response waits for `release` (the rest after). */
  holdAfter?: number;
  release?: Promise<void>;
  /** How many times the export was asked for, and with which Authorization. */
  asked: string[];
}

/** A fake of another Slink's GET /api/v1/export: the path before /api/v1/export names the export. */
export class ExportServer {
  private readonly served = new Map<string, Served>();
  private readonly server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => this.answer(request),
  });

  get origin(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Serves `lines` at `${origin}/${name}` and returns that address. */
  serve(
    name: string,
    lines: string[],
    hold?: { after: number; release: Promise<void> },
  ): { url: string; served: Served } {
    const served: Served = { lines, holdAfter: hold?.after, release: hold?.release, asked: [] };
    this.served.set(name, served);
    return { url: `${this.origin}/${name}`, served };
  }

  private answer(request: Request): Response {
    const path = new URL(request.url).pathname;
    const name = path.replace(/^\//, '').replace(/\/api\/v1\/export$/, '');
    const served = this.served.get(name);
    if (!served || !path.endsWith('/api/v1/export')) return new Response('not found', { status: 404 });
    served.asked.push(request.headers.get('authorization') ?? '');
    if (request.headers.get('authorization') !== 'Bearer other-slink-key')
      return Response.json({ error: { code: 'key_unknown' } }, { status: 401 });
    const encoder = new TextEncoder();
    const { lines, holdAfter, release } = served;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const cut = holdAfter ?? lines.length;
        controller.enqueue(encoder.encode(lines.slice(0, cut).join('')));
        if (cut < lines.length) {
          await release;
          controller.enqueue(encoder.encode(lines.slice(cut).join('')));
        }
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/x-ndjson' } });
  }

  stop(): void {
    this.server.stop(true);
  }
}

export const TOKEN = 'other-slink-key';

const line = (value: object) => `${JSON.stringify(value)}\n`;

export const header = (clicks = false) => line({ type: 'export', version: 1, exportedAt: 1, source: 'slink', clicks });

let n = 0;
/** A link line as the export writes one (the fields the import reads, the rest as a Link has them). */
export function linkLine(fields: Record<string, unknown> = {}): string {
  n++;
  return line({
    type: 'link',
    id: `lnk_other${String(n).padStart(11, '0')}`,
    slug: `s${n}`,
    shortUrl: `https://other.test/s${n}`,
    domain: 'other.test',
    destination: `https://example.com/page/${n}`,
    title: null,
    tags: [],
    status: 'active',
    params: {},
    clickCount: 0,
    createdAt: Date.UTC(2026, 0, 1),
    expiresAt: null,
    clickLimit: null,
    ...fields,
  });
}

/** The id a link line carries. */
export const idOf = (text: string): string => JSON.parse(text).id;

/** Reads the run until it ended (wait on what is read, never on time). */
export async function ended(read: () => Promise<{ status: string }>, what = 'the import to end'): Promise<any> {
  let last: { status: string } = { status: 'running' };
  await waitUntil(async () => {
    last = await read();
    return last.status !== 'running';
  }, what);
  return last;
}
