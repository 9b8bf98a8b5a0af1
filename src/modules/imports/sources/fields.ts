/**
 * Reading a product's JSON without trusting it: each helper answers the value when it has the
 * expected type, else null (unknown), so a field a product leaves out or sends oddly never
 * becomes an invented value.
 */

export type Json = Record<string, unknown>;

export function obj(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A non-empty string, else null. */
export function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A finite number, or a string of one (YOURLS sends counts as strings), else null. */
export function num(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

export function strings(value: unknown): string[] {
  return arr(value)
    .map((v) => (typeof v === 'string' ? v.trim() : ''))
    .filter((v) => v !== '');
}

/**
 * A time as products write it, in epoch ms, or null: ISO 8601 with an offset written `+0000`
 * (Bitly) or `+00:00`, and `YYYY-MM-DD[ hh:mm:ss]` without one, which YOURLS, Kutt's SQLite and
 * CSV exports write in UTC.
 */
export function time(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return null;
  let text = value.trim();
  if (text === '' || text.startsWith('0000-00-00')) return null;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(text);
  if (m !== null) {
    const zone = m[3] === undefined ? 'Z' : m[3].length === 5 ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : m[3];
    text = `${m[1]}T${m[2] ?? '00:00:00'}${zone.toUpperCase()}`;
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : at;
}

/** The short host as Slink keeps it: lowercase, without a port. */
export function hostOf(address: string): string | null {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** The back-half of a short URL: its path without the leading slash, decoded; null when empty. */
export function pathOf(address: string): string | null {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`);
    const path = decodeURIComponent(url.pathname.replace(/^\/+/, ''));
    return path === '' ? null : path;
  } catch {
    return null;
  }
}

/** An origin given by a person (`https://s.test/`), without its trailing slashes. */
export function baseOf(url: string | null): string | null {
  if (url === null) return null;
  const trimmed = url.trim().replace(/\/+$/, '');
  return trimmed === '' ? null : trimmed;
}

/**
 * An address as a message shows it: without its user, password, query or fragment (a person may
 * put a password or YOURLS's signature there, and a message reaches the run's errors and logs).
 */
export function shownAddress(address: string): string {
  try {
    const url = new URL(address);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return address.replace(/\/\/[^/?#]*@/, '//').replace(/[?#].*$/, '');
  }
}
