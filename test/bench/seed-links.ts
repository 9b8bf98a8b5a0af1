/**
 * A database of many links, made fast for a benchmark: migrated by the production migrator,
 * links written through the one write path (writeLinks) 10,000 per transaction.
 */
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';
import { migrateDatabase } from '../../src/db/migrate';
import { createDeps, type Deps } from '../../src/deps';
import { systemClock } from '../../src/lib/clock';
import { freshSlug, newLinkRow } from '../../src/modules/links/service';
import { insertLinks, writeLinks } from '../../src/modules/links/writes';

/** No params (typed, so `cond ? {...} : NO_PARAMS` is a Record). */
export const NO_PARAMS: Record<string, string> = {};

export interface LinkShape {
  destination: string;
  title?: string | null;
  params?: Record<string, string>;
  tags?: string[];
  projectId?: string | null;
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

/** Writes `count` links shaped by `shape(i)`; returns their slugs in order. */
export function seedLinks(deps: Deps, count: number, shape: (i: number) => LinkShape): string[] {
  const taken = new Set<string>();
  const items: Parameters<typeof insertLinks>[1] = [];
  const write = () => {
    const batch = items.splice(0);
    writeLinks(deps, (w) => insertLinks(w, batch));
  };
  for (let i = 0; i < count; i++) {
    const slug = freshSlug(deps, taken);
    taken.add(slug);
    const s = shape(i);
    const fields = { slug, destination: s.destination, title: s.title ?? null, params: s.params ?? {} };
    items.push({
      row: newLinkRow(deps, { ...fields, projectId: s.projectId ?? null, expiresAt: null, clickLimit: null }),
      tags: s.tags ?? [],
    });
    if (items.length === 10_000) write();
  }
  write();
  return [...taken];
}
