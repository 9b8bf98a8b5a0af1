/**
 * The proxy configurations of docs/operations.md, "Short domains", as written there (read out of
 * the doc; only ports, storage and certificate paths replaced), in front of one Slink with two
 * short domains, each with a link of the same slug:
 * - Caddy's on-demand TLS: a domain of the workspace gets a certificate at its first visit and
 *   its link redirects; a name Slink does not know is refused a certificate, because /tls/ask
 *   answers 404 for it, until it is added;
 * - nginx: each domain's slug answers its own destination, and the app host the API.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { freePort } from '../helpers/proc';
import {
  type Caddy,
  docBlock,
  httpsGet,
  type ProxyProcess,
  proxyBin,
  replaceEach,
  selfSignedCertificate,
  startCaddy,
  startNginx,
} from '../helpers/proxies';

/** The hosts the doc's configurations name. */
const DEFAULT_HOST = 'sl.ink';
const OTHER_HOST = 'go.example.com';
const APP_HOST = 'links.example.com';

let t: TestApp;
let key: string;
/** Where the app listens: the doc's `127.0.0.1:3000`. */
let upstream: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slink-proxies-'));
  t = await makeTestApp({
    SLINK_SHORT_HOST: `https://${DEFAULT_HOST}`,
    SLINK_APP_HOST: `https://${APP_HOST}`,
    SLINK_TRUST_PROXY: '1',
  });
  const server = t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false }).server!;
  upstream = `127.0.0.1:${server.port}`;
  key = (await makeKey(t, 'write', { superuser: true })).key;
  await apiExpecting(t, key, 'POST', '/domains', { origin: `https://${OTHER_HOST}` });
  // The same slug on both domains, each its own link.
  await apiExpecting(t, key, 'POST', '/links', { destination: 'https://example.com/default-spring', slug: 'spring' });
  await apiExpecting(t, key, 'POST', '/links', {
    destination: 'https://example.com/other-spring',
    slug: 'spring',
    domain: OTHER_HOST,
  });
});

afterAll(async () => {
  await disposeTestApp(t);
  rmSync(dir, { recursive: true, force: true });
});

/** What the app answers itself to Caddy's question (Caddy sends no Host of its own: the address it asks). */
async function asked(domain: string): Promise<number> {
  const res = await fetch(`http://${upstream}/tls/ask?domain=${domain}`);
  await res.arrayBuffer();
  return res.status;
}

/** A TLS handshake's failure, or null when the handshake succeeded. */
async function handshakeError(port: number, host: string, ca: string): Promise<string | null> {
  try {
    await httpsGet(port, host, '/', ca);
    return null;
  } catch (err) {
    return String(err);
  }
}

const caddyBin = proxyBin('caddy', 'caddy');

describe.skipIf(caddyBin === null)("Caddy's on-demand TLS (the doc's Caddyfile)", () => {
  let caddy: Caddy;
  let port: number;
  beforeAll(async () => {
    port = freePort();
    const caddyfile = replaceEach(docBlock('test/proxies/short-domains.test.ts runs this Caddyfile'), {
      '127.0.0.1:3000': upstream,
    });
    caddy = await startCaddy(caddyBin!, join(dir, 'caddy'), caddyfile, { http: freePort(), https: port });
  }, 30_000);
  afterAll(() => caddy?.stop());

  test('a domain of the workspace gets a certificate at its first visit, and its link redirects', async () => {
    expect(await asked(OTHER_HOST)).toBe(200);
    // No request has reached it yet: what lastSeenAt tells an operator whose DNS or proxy is not set.
    expect((await apiExpecting(t, key, 'GET', `/domains/${OTHER_HOST}`)).lastSeenAt).toBeNull();
    for (const [host, destination] of [
      [OTHER_HOST, 'https://example.com/other-spring'],
      [DEFAULT_HOST, 'https://example.com/default-spring'],
    ] as const) {
      const res = await httpsGet(port, host, '/spring', caddy.rootCert);
      expect({ host, status: res.status, location: res.headers.location }).toEqual({
        host,
        status: 302,
        location: destination,
      });
      expect(res.certificate.subjectaltname).toBe(`DNS:${host}`);
    }
    // The request arrived with its Host: the domain was seen.
    expect((await apiExpecting(t, key, 'GET', `/domains/${OTHER_HOST}`)).lastSeenAt).toBe(t.clock.now());
  }, 30_000);

  test('the app host answers the API through it', async () => {
    const res = await httpsGet(port, APP_HOST, '/api/v1/domains', caddy.rootCert, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    const { domains } = JSON.parse(res.text) as { domains: { host: string }[] };
    expect(domains.map((d) => d.host)).toEqual([DEFAULT_HOST, OTHER_HOST]);
  }, 30_000);

  test('a name Slink does not know is refused a certificate (/tls/ask: 404) until it is added', async () => {
    const stranger = 'stranger.example.net';
    expect(await asked(stranger)).toBe(404);
    // No trusted connection: Caddy ends the handshake, or (seen once on a loaded box) the client
    // refuses what it was offered ("certificate is not yet valid").
    expect(await handshakeError(port, stranger, caddy.rootCert)).toMatch(
      /alert|handshake|socket|closed|reset|ECONN|certificate|altname/i,
    );

    // The same Caddy, nothing reloaded: once Slink answers 200, the handshake succeeds.
    await apiExpecting(t, key, 'POST', '/domains', { origin: `https://${stranger}` });
    expect(await asked(stranger)).toBe(200);
    const res = await httpsGet(port, stranger, '/spring', caddy.rootCert);
    // Its own links only: the slug of the other domains is not one of them.
    expect({ status: res.status, cert: res.certificate.subjectaltname }).toEqual({
      status: 404,
      cert: `DNS:${stranger}`,
    });
    await apiExpecting(t, key, 'DELETE', `/domains/${stranger}`);
    expect(await asked(stranger)).toBe(404);
  }, 30_000);
});

const nginxBin = proxyBin('nginx', 'nginx-light');

describe.skipIf(nginxBin === null)("nginx (the doc's server blocks)", () => {
  let nginx: ProxyProcess;
  let port: number;
  let ca: string;
  beforeAll(async () => {
    port = freePort();
    const nginxDir = join(dir, 'nginx');
    // One certificate for every name, in place of the doc's two.
    const cert = await selfSignedCertificate(nginxDir, [DEFAULT_HOST, OTHER_HOST, APP_HOST]);
    ca = cert.pem;
    const servers = replaceEach(docBlock('test/proxies/short-domains.test.ts runs these server blocks'), {
      'listen 443 ssl;': `listen 127.0.0.1:${port} ssl;`,
      [`/etc/letsencrypt/live/${DEFAULT_HOST}/fullchain.pem`]: cert.certFile,
      [`/etc/letsencrypt/live/${DEFAULT_HOST}/privkey.pem`]: cert.keyFile,
      [`/etc/letsencrypt/live/${APP_HOST}/fullchain.pem`]: cert.certFile,
      [`/etc/letsencrypt/live/${APP_HOST}/privkey.pem`]: cert.keyFile,
      '127.0.0.1:3000': upstream,
    });
    nginx = await startNginx(nginxBin!, nginxDir, servers, port);
  }, 30_000);
  afterAll(() => nginx?.stop());

  test("two domains' same slug answer each its own destination", async () => {
    const answers: Record<string, unknown> = {};
    for (const host of [DEFAULT_HOST, OTHER_HOST]) {
      const res = await httpsGet(port, host, '/spring', ca);
      answers[host] = { status: res.status, location: res.headers.location };
    }
    expect(answers).toEqual({
      [DEFAULT_HOST]: { status: 302, location: 'https://example.com/default-spring' },
      [OTHER_HOST]: { status: 302, location: 'https://example.com/other-spring' },
    });
  }, 30_000);

  test('the app host answers the API', async () => {
    const res = await httpsGet(port, APP_HOST, '/api/v1/domains', ca, { authorization: `Bearer ${key}` });
    expect({ status: res.status, output: res.status === 200 ? '' : nginx.output() }).toEqual({
      status: 200,
      output: '',
    });
  }, 30_000);
});
