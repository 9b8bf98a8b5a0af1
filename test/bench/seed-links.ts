/**
 * A database of many links, made fast for a benchmark: migrated by the production migrator,
 * links written through the one write path (the LinkWriter) 10,000 per transaction.
 */

import { createDeps, type Deps, unportedDb } from '../../src/compose/deps';
import { postgresStores } from '../../src/compose/stores';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';
import { migrateDatabase } from '../../src/db/migrate';
import { openPostgres } from '../../src/db/postgres/client';
import { systemClock } from '../../src/lib/clock';
import type { Rule } from '../../src/modules/links/rules';
import { newLinkRow } from '../../src/modules/links/service';
import { generateSlug } from '../../src/modules/links/slug';
import type { NewLink } from '../../src/modules/links/store';
import { insertLinks } from '../../src/modules/links/writer';

/** No params (typed, so `cond ? {...} : NO_PARAMS` is a Record). */
export const NO_PARAMS: Record<string, string> = {};

export interface LinkShape {
  destination: string;
  title?: string | null;
  params?: Record<string, string>;
  tags?: string[];
  projectId?: string | null;
  /** The domain's id (default: the default domain). */
  domainId?: number;
  rules?: Rule[];
}

/** Opens (and migrates) the database at `dbPath` with deps for services, as the CLI does. */
export function benchDeps(dbPath: string): Deps {
  const db = openDatabase(dbPath);
  migrateDatabase(db);
  return createDeps({
    db,
    config: loadConfig({ SLINK_DB: dbPath }),
    clock: systemClock,
    log: { info() {}, error: console.error },
  });
}

/** The same on a (migrated) PostgreSQL database. */
export function benchDepsPostgres(url: string, dbPath: string): Deps {
  return createDeps({
    db: unportedDb(),
    stores: postgresStores(openPostgres(url), url),
    config: loadConfig({ SLINK_DB: dbPath, SLINK_DATABASE_URL: url }),
    clock: systemClock,
    log: { info() {}, error: console.error },
  });
}

/**
 * Writes `count` links shaped by `shape(i)`; returns their slugs in order. With `slugs`, the
 * i-th link takes the i-th of them (a second engine seeded with the same links).
 */
export async function seedLinks(
  deps: Deps,
  count: number,
  shape: (i: number) => LinkShape,
  slugs?: readonly string[],
): Promise<string[]> {
  // The default domain is named at start (domains/start.ts): links need its id.
  await deps.domainsReady;
  const taken = new Set<string>();
  const items: NewLink[] = [];
  const write = () => insertLinks(deps, items.splice(0));
  for (let i = 0; i < count; i++) {
    let slug = slugs?.[i] ?? generateSlug();
    // Drawn at random (7 characters): a repeat in one seed is the only clash to rule out.
    while (taken.has(slug)) slug = generateSlug();
    taken.add(slug);
    const s = shape(i);
    const fields = { slug, destination: s.destination, title: s.title ?? null, params: s.params ?? {} };
    items.push({
      row: newLinkRow(deps, {
        ...fields,
        domainId: s.domainId ?? deps.domains.default.id,
        projectId: s.projectId ?? null,
        expiresAt: null,
        clickLimit: null,
        rules: s.rules?.length ? s.rules : null,
      }),
      tags: s.tags ?? [],
    });
    if (items.length === 10_000) await write();
  }
  await write();
  return [...taken];
}
