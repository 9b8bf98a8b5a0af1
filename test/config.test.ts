/** loadConfig against the Configuration table of the README. */
import { describe, expect, test } from 'bun:test';
import { hostname } from 'node:os';
import { CONFIG_VARS, ConfigError, configHelp, loadConfig } from '../src/config';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('defaults (README, Configuration)', () => {
  test('an empty environment gives every documented default', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      hostname: '0.0.0.0',
      dbPath: './data/slink.db',
      shortHost: 'http://localhost:3000',
      appHost: 'http://localhost:3000',
      flushMs: 1000,
      trustProxy: 0,
      geoDb: null,
      rateLimit: 600,
      workspaceName: 'Slink',
      retentionDays: 0,
      metricsToken: null,
      sessionDays: 30,
      databaseUrl: null,
      nodeId: hostname(),
      webhooksAllowPrivate: false,
      upstreamAllowPrivate: false,
      liveStreams: 500,
      privacy: { honorGpc: true, honorDnt: false, noTrackParam: null, referrer: 'host', geo: 'city' },
    });
  });

  test('empty strings count as unset', () => {
    const env = Object.fromEntries(CONFIG_VARS.map((v) => [v.name, '']));
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });

  test('the short host defaults to http://localhost:$SLINK_PORT, and the app host to the short host', () => {
    const c = loadConfig({ SLINK_PORT: '8080' });
    expect(c.port).toBe(8080);
    expect(c.shortHost).toBe('http://localhost:8080');
    expect(c.appHost).toBe('http://localhost:8080');
    const s = loadConfig({ SLINK_SHORT_HOST: 'https://sl.ink' });
    expect(s.shortHost).toBe('https://sl.ink');
    expect(s.appHost).toBe('https://sl.ink');
    const both = loadConfig({ SLINK_SHORT_HOST: 'https://sl.ink', SLINK_APP_HOST: 'https://app.sl.ink' });
    expect([both.shortHost, both.appHost]).toEqual(['https://sl.ink', 'https://app.sl.ink']);
  });

  test('every variable is read', () => {
    expect(
      loadConfig({
        SLINK_PORT: '4000',
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_DB: '/var/lib/slink/s.db',
        SLINK_SHORT_HOST: 'https://s.example',
        SLINK_APP_HOST: 'https://a.example',
        SLINK_FLUSH_MS: '250',
        SLINK_TRUST_PROXY: '1',
        SLINK_GEO_DB: '/geo/city.mmdb',
        SLINK_RATE_LIMIT: '60',
        SLINK_WORKSPACE_NAME: 'Acme',
        SLINK_RETENTION_DAYS: '90',
        SLINK_METRICS_TOKEN: 'scrape-me-please',
        SLINK_SESSION_DAYS: '7',
        SLINK_DATABASE_URL: 'postgresql://slink:secret@db.internal:5433/slink',
        SLINK_NODE_ID: 'node-2.eu',
        SLINK_WEBHOOKS_ALLOW_PRIVATE: '1',
        SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
        SLINK_LIVE_STREAMS: '20',
        SLINK_HONOR_GPC: '0',
        SLINK_HONOR_DNT: '1',
        SLINK_NO_TRACK_PARAM: 'notrack',
        SLINK_REFERRER: 'none',
        SLINK_GEO: 'country',
      }),
    ).toEqual({
      port: 4000,
      hostname: '127.0.0.1',
      dbPath: '/var/lib/slink/s.db',
      shortHost: 'https://s.example',
      appHost: 'https://a.example',
      flushMs: 250,
      trustProxy: 1,
      geoDb: '/geo/city.mmdb',
      rateLimit: 60,
      workspaceName: 'Acme',
      retentionDays: 90,
      metricsToken: 'scrape-me-please',
      sessionDays: 7,
      databaseUrl: 'postgresql://slink:secret@db.internal:5433/slink',
      nodeId: 'node-2.eu',
      webhooksAllowPrivate: true,
      upstreamAllowPrivate: true,
      liveStreams: 20,
      privacy: { honorGpc: false, honorDnt: true, noTrackParam: 'notrack', referrer: 'none', geo: 'country' },
    });
    expect(loadConfig({ SLINK_TRUST_PROXY: '0' }).trustProxy).toBe(0);
    expect(loadConfig({ SLINK_TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  test('the result is frozen', () => {
    const c = loadConfig({});
    expect(Object.isFrozen(c)).toBe(true);
    expect(() => {
      (c as { port: number }).port = 1;
    }).toThrow();
  });

  test('reads process.env when no environment is given', () => {
    const saved = process.env.SLINK_WORKSPACE_NAME;
    process.env.SLINK_WORKSPACE_NAME = 'From process.env';
    try {
      expect(loadConfig().workspaceName).toBe('From process.env');
    } finally {
      if (saved === undefined) delete process.env.SLINK_WORKSPACE_NAME;
      else process.env.SLINK_WORKSPACE_NAME = saved;
    }
  });
});

describe('origins are normalised', () => {
  test('a trailing slash is dropped, so shortUrl is origin + "/" + slug', () => {
    expect(loadConfig({ SLINK_SHORT_HOST: 'https://sl.ink/' }).shortHost).toBe('https://sl.ink');
    expect(loadConfig({ SLINK_APP_HOST: 'https://app.sl.ink/' }).appHost).toBe('https://app.sl.ink');
    // The default app host follows the normalised short host.
    expect(loadConfig({ SLINK_SHORT_HOST: 'https://sl.ink/' }).appHost).toBe('https://sl.ink');
  });

  test('scheme and host are lower-cased, default ports dropped, explicit ports kept', () => {
    expect(loadConfig({ SLINK_SHORT_HOST: 'HTTPS://SL.Ink' }).shortHost).toBe('https://sl.ink');
    expect(loadConfig({ SLINK_SHORT_HOST: 'https://sl.ink:443/' }).shortHost).toBe('https://sl.ink');
    expect(loadConfig({ SLINK_SHORT_HOST: 'http://sl.ink:80' }).shortHost).toBe('http://sl.ink');
    expect(loadConfig({ SLINK_SHORT_HOST: 'https://sl.ink:8443' }).shortHost).toBe('https://sl.ink:8443');
    expect(loadConfig({ SLINK_SHORT_HOST: 'http://[::1]:3000' }).shortHost).toBe('http://[::1]:3000');
  });
});

describe('bad values throw ConfigError naming the variable', () => {
  const cases: [string, Record<string, string>][] = [
    ['SLINK_PORT', { SLINK_PORT: 'abc' }],
    ['SLINK_PORT', { SLINK_PORT: '-1' }],
    ['SLINK_PORT', { SLINK_PORT: '65536' }],
    ['SLINK_PORT', { SLINK_PORT: '80.5' }],
    ['SLINK_PORT', { SLINK_PORT: '3000abc' }],
    ['SLINK_PORT', { SLINK_PORT: ' 3000' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'ftp://x' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'https://sl.ink/path' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'https://sl.ink/?q=1' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'https://sl.ink/#x' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'sl.ink' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'not a url' }],
    ['SLINK_SHORT_HOST', { SLINK_SHORT_HOST: 'javascript:alert(1)' }],
    ['SLINK_APP_HOST', { SLINK_APP_HOST: 'ftp://x' }],
    ['SLINK_APP_HOST', { SLINK_APP_HOST: 'https://app.sl.ink/dashboard' }],
    ['SLINK_TRUST_PROXY', { SLINK_TRUST_PROXY: '11' }],
    ['SLINK_TRUST_PROXY', { SLINK_TRUST_PROXY: '-1' }],
    ['SLINK_TRUST_PROXY', { SLINK_TRUST_PROXY: '1.0' }],
    ['SLINK_TRUST_PROXY', { SLINK_TRUST_PROXY: 'true' }],
    ['SLINK_TRUST_PROXY', { SLINK_TRUST_PROXY: 'yes' }],
    ['SLINK_FLUSH_MS', { SLINK_FLUSH_MS: 'soon' }],
    ['SLINK_FLUSH_MS', { SLINK_FLUSH_MS: '0' }],
    ['SLINK_RATE_LIMIT', { SLINK_RATE_LIMIT: '0' }],
    ['SLINK_RATE_LIMIT', { SLINK_RATE_LIMIT: 'many' }],
    ['SLINK_RATE_LIMIT', { SLINK_RATE_LIMIT: '1e3' }],
    ['SLINK_SESSION_DAYS', { SLINK_SESSION_DAYS: '0' }],
    ['SLINK_SESSION_DAYS', { SLINK_SESSION_DAYS: '-3' }],
    ['SLINK_SESSION_DAYS', { SLINK_SESSION_DAYS: '1.5' }],
    ['SLINK_SESSION_DAYS', { SLINK_SESSION_DAYS: 'month' }],
    ['SLINK_RETENTION_DAYS', { SLINK_RETENTION_DAYS: '36501' }],
    ['SLINK_RETENTION_DAYS', { SLINK_RETENTION_DAYS: '-1' }],
    ['SLINK_HONOR_GPC', { SLINK_HONOR_GPC: 'yes' }],
    ['SLINK_HONOR_DNT', { SLINK_HONOR_DNT: '2' }],
    ['SLINK_NO_TRACK_PARAM', { SLINK_NO_TRACK_PARAM: 'no track' }],
    ['SLINK_REFERRER', { SLINK_REFERRER: 'full' }],
    ['SLINK_GEO', { SLINK_GEO: 'region' }],
  ];
  for (const [variable, env] of cases) {
    test(`${JSON.stringify(env)}`, () => {
      const err = configError(env);
      expect(err.message).toContain(variable);
      // The bad value is shown so the operator can find it.
      expect(err.message).toContain(Object.values(env)[0]!);
    });
  }

  test('a bad port is reported even when the short host is given', () => {
    expect(configError({ SLINK_PORT: 'abc', SLINK_SHORT_HOST: 'https://sl.ink' }).message).toContain('SLINK_PORT');
  });
});

describe('help text', () => {
  test('lists every variable with its default, in the order of the README', () => {
    const help = configHelp();
    const names = [
      'SLINK_PORT',
      'SLINK_HOSTNAME',
      'SLINK_DB',
      'SLINK_SHORT_HOST',
      'SLINK_APP_HOST',
      'SLINK_FLUSH_MS',
      'SLINK_TRUST_PROXY',
      'SLINK_GEO_DB',
      'SLINK_RATE_LIMIT',
      'SLINK_WORKSPACE_NAME',
      'SLINK_RETENTION_DAYS',
      'SLINK_METRICS_TOKEN',
      'SLINK_SESSION_DAYS',
      'SLINK_DATABASE_URL',
      'SLINK_NODE_ID',
      'SLINK_WEBHOOKS_ALLOW_PRIVATE',
      'SLINK_UPSTREAM_ALLOW_PRIVATE',
      'SLINK_LIVE_STREAMS',
      'SLINK_HONOR_GPC',
      'SLINK_HONOR_DNT',
      'SLINK_NO_TRACK_PARAM',
      'SLINK_REFERRER',
      'SLINK_GEO',
    ];
    expect(CONFIG_VARS.map((v) => v.name)).toEqual(names);
    const lines = help.split('\n');
    expect(lines).toHaveLength(names.length);
    for (const [i, name] of names.entries()) expect(lines[i]!.trim().startsWith(name)).toBe(true);
    for (const def of ['3000', '0.0.0.0', './data/slink.db', 'http://localhost:$SLINK_PORT', '1000', '600', 'Slink'])
      expect(help).toContain(def);
    expect(lines.at(-1)).toMatch(/^\s*SLINK_GEO\s+city\s+what a click keeps of its place/);
  });
});

describe('SLINK_DATABASE_URL and SLINK_NODE_ID', () => {
  test('postgres:// and postgresql:// URLs are taken as given', () => {
    expect(loadConfig({ SLINK_DATABASE_URL: 'postgres://u@localhost/db' }).databaseUrl).toBe(
      'postgres://u@localhost/db',
    );
  });

  test('a malformed URL names the variable and never repeats a password', () => {
    for (const bad of [
      'not a url',
      'mysql://u:hunter2@h/db',
      'postgres://u:hunter2@/db',
      'postgres://u:hunter2@host',
      'postgres://u:hunter2@host/',
    ]) {
      const err = configError({ SLINK_DATABASE_URL: bad });
      expect(err.message).toStartWith('SLINK_DATABASE_URL');
      expect(err.message).not.toContain('hunter2');
    }
  });

  test('a password holding / or # as it is: told to percent-encode it, never repeated', () => {
    for (const bad of [
      'postgres://slink:hunter2/x@db.internal:5432/slink',
      'postgres://slink:hunter2#x@db.internal:5432/slink',
      'postgres://slink:12/hunter2@db.internal/slink',
      'postgresql://slink:a?b#c/d@db.internal:5432/slink',
    ]) {
      const err = configError({ SLINK_DATABASE_URL: bad });
      expect(err.message).toStartWith('SLINK_DATABASE_URL');
      expect(err.message).toContain('encode / as %2F and # as %23');
      expect(err.message).not.toContain('hunter2');
    }
    // Encoded, the same passwords are taken; an @ further on (a parameter) is not mistaken for one.
    for (const good of [
      'postgres://slink:hunter2%2Fx@db.internal:5432/slink',
      'postgres://slink:hunter2%23x@db.internal:5432/slink',
      'postgres://slink@db.internal:5432/slink?application_name=ops@example.com',
    ]) {
      expect(loadConfig({ SLINK_DATABASE_URL: good }).databaseUrl).toBe(good);
    }
  });

  test('a node id is letters, digits, dot, dash and underscore', () => {
    expect(configError({ SLINK_NODE_ID: 'node 1' }).message).toStartWith('SLINK_NODE_ID');
    expect(configError({ SLINK_NODE_ID: 'x'.repeat(65) }).message).toStartWith('SLINK_NODE_ID');
  });
});
