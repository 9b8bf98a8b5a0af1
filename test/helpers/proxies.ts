/**
 * The reverse proxies of docs/operations.md, "Short domains", run for real: Debian's `caddy` and
 * `nginx` started as child processes with configurations of their own (their own ports, storage
 * and temporary folders; never the system services), and an HTTPS client that names the host it
 * asks for (SNI and Host) while connecting to 127.0.0.1, so no DNS is needed.
 *
 * The configurations come out of the doc itself (`docBlock`): the fenced block after an HTML
 * comment that names the test, so the doc cannot drift from what is tested. What a test changes
 * in them (ports, certificate paths) is replaced with `replaceEach`, which fails when the doc no
 * longer holds what it replaces.
 */
import { expect } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import type { Subprocess } from 'bun';
import { ROOT, run } from './proc';

/**
 * The text of the first fenced code block after the line `<!-- <marker>` in docs/operations.md
 * (without its fences).
 */
export function docBlock(marker: string): string {
  const doc = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const at = doc.indexOf(`<!-- ${marker}`);
  if (at < 0) throw new Error(`docs/operations.md has no <!-- ${marker} ... --> marker`);
  const block = /\n```[a-z]*\n([\s\S]*?)\n```\n/.exec(doc.slice(at));
  if (!block) throw new Error(`docs/operations.md: no fenced block after <!-- ${marker} ... -->`);
  return `${block[1]}\n`;
}

/** `text` with every occurrence of each `from` replaced by its `to`; each `from` must occur. */
export function replaceEach(text: string, replacements: Record<string, string>): string {
  let out = text;
  for (const [from, to] of Object.entries(replacements)) {
    expect({ replaced: from, found: out.includes(from) }).toEqual({ replaced: from, found: true });
    out = out.split(from).join(to);
  }
  return out;
}

/**
 * The executable of a Debian package's program (/usr/sbin is not on every user's PATH), or null.
 * On CI (CI=true) a missing one fails: scripts/test-deps.sh installs it there.
 */
export function proxyBin(name: 'caddy' | 'nginx', pkg: string): string | null {
  const found = Bun.which(name) ?? Bun.which(name, { PATH: '/usr/sbin:/usr/local/sbin:/usr/bin' });
  if (found) return found;
  const why = `${name} is not installed: run scripts/test-deps.sh (Debian package ${pkg})`;
  if (process.env.CI) throw new Error(why);
  console.warn(`SKIPPED: the ${name} tests (${why})`);
  return null;
}

export interface HttpsAnswer {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  text: string;
  /** The certificate the server presented. */
  certificate: PeerCertificate;
}

/**
 * GET `path` over TLS from 127.0.0.1:`port`, asking for `host` (SNI and Host), trusting only
 * `ca` (PEM). Rejects with the TLS error when the handshake fails or the certificate is not
 * trusted for `host`.
 */
export function httpsGet(
  port: number,
  host: string,
  path: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: host, ca, ALPNProtocols: ['http/1.1'] }, () => {
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${host}`, 'Connection: close'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.setTimeout(15_000, () => socket.destroy(new Error(`no answer from ${host} within 15 s`)));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const certificate = socket.getPeerCertificate();
      const data = Buffer.concat(chunks).toString('utf8');
      const split = data.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = data.slice(0, split).split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]),
        headers: parsed,
        text: data.slice(split + 4),
        certificate,
      });
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export interface ProxyProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  /** What it wrote so far (its log), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Spawns `cmd` and waits until `ready()` holds (or it exits: then throws with its output). */
async function startProxy(
  cmd: string[],
  env: Record<string, string>,
  ready: () => Promise<boolean>,
): Promise<ProxyProcess> {
  const proc = Bun.spawn(cmd, { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  let written = '';
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) written += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  const proxy: ProxyProcess = {
    proc,
    output: () => written,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + 20_000;
  while (!(await ready())) {
    if (proc.exitCode !== null) throw new Error(`${cmd[0]} exited (${proc.exitCode}) at start:\n${written}`);
    if (Date.now() > deadline) {
      await proxy.stop();
      throw new Error(`${cmd[0]} did not start within 20 s:\n${written}`);
    }
    await Bun.sleep(25);
  }
  return proxy;
}

export interface Caddy extends ProxyProcess {
  /** The PEM of the root certificate of Caddy's local CA, which signs every certificate it gives. */
  rootCert: string;
}

/**
 * `caddy run` on a Caddyfile whose global options block (the file's first `{`) gets the test's
 * own: no admin endpoint, its ports, its storage under `dir`, certificates from Caddy's local CA
 * (no public CA is reachable) and that CA kept out of the system's trust store.
 */
export async function startCaddy(
  bin: string,
  dir: string,
  caddyfile: string,
  ports: { http: number; https: number },
): Promise<Caddy> {
  expect(caddyfile.startsWith('{\n')).toBe(true);
  mkdirSync(dir, { recursive: true });
  const storage = join(dir, 'caddy-storage');
  const own = [
    '\tadmin off',
    `\thttp_port ${ports.http}`,
    `\thttps_port ${ports.https}`,
    `\tstorage file_system ${storage}`,
    '\tlocal_certs',
    '\tskip_install_trust',
  ].join('\n');
  const file = join(dir, 'Caddyfile');
  writeFileSync(file, `{\n${own}\n${caddyfile.slice(2)}`);
  const root = join(storage, 'pki/authorities/local/root.crt');
  const proxy = await startProxy(
    [bin, 'run', '--config', file, '--adapter', 'caddyfile'],
    // Caddy writes its autosaved configuration and data under these, never the user's own.
    {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'xdg-config'),
      XDG_DATA_HOME: join(dir, 'xdg-data'),
    },
    async () => existsSync(root) && (await accepts(ports.https)),
  );
  return { ...proxy, rootCert: readFileSync(root, 'utf8') };
}

/**
 * nginx in the foreground with `servers` (server blocks) in an `http` block of a configuration
 * of the test's own, every file it writes under `dir`.
 */
export async function startNginx(bin: string, dir: string, servers: string, port: number): Promise<ProxyProcess> {
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      'worker_processes 1;',
      'daemon off;',
      `pid ${join(dir, 'nginx.pid')};`,
      'error_log stderr notice;',
      'events { worker_connections 64; }',
      'http {',
      '    access_log off;',
      `    client_body_temp_path ${join(dir, 'client_body')};`,
      `    proxy_temp_path ${join(dir, 'proxy')};`,
      `    fastcgi_temp_path ${join(dir, 'fastcgi')};`,
      `    uwsgi_temp_path ${join(dir, 'uwsgi')};`,
      `    scgi_temp_path ${join(dir, 'scgi')};`,
      servers,
      '}',
      '',
    ].join('\n'),
  );
  return startProxy([bin, '-e', 'stderr', '-p', dir, '-c', conf], { PATH: process.env.PATH ?? '' }, () =>
    accepts(port),
  );
}

/** A self-signed certificate for `hosts` (openssl), written under `dir`: its key, its PEM. */
export async function selfSignedCertificate(
  dir: string,
  hosts: readonly string[],
): Promise<{ certFile: string; keyFile: string; pem: string }> {
  mkdirSync(dir, { recursive: true });
  const certFile = join(dir, 'proxy.crt');
  const keyFile = join(dir, 'proxy.key');
  const made = await run(
    [
      'openssl',
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${hosts[0]}`,
      '-addext',
      `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { env: { PATH: process.env.PATH ?? '' } },
  );
  expect({ code: made.code, stderr: made.code === 0 ? '' : made.stderr }).toEqual({ code: 0, stderr: '' });
  return { certFile, keyFile, pem: readFileSync(certFile, 'utf8') };
}
