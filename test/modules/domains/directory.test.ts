/**
 * The domains in memory (domains/directory.ts): refreshes land in the order they began, and the
 * times a domain was seen survive every refresh, whatever its id.
 */
import { expect, test } from 'bun:test';
import { DomainDirectory, type DomainFacts } from '../../../src/modules/domains/public';

const facts = (id: number, host: string, extra: Partial<DomainFacts> = {}): DomainFacts => ({
  id,
  host,
  origin: `https://${host}`,
  isDefault: id === 1,
  rootUrl: null,
  notFoundUrl: null,
  expiredUrl: null,
  upstream: null,
  appleAppSiteAssociation: null,
  assetLinks: null,
  ...extra,
});

test('a slower, older read never overwrites a newer one', async () => {
  const directory = new DomainDirectory();
  directory.replace([facts(1, 'a.example')]);
  let releaseOld!: () => void;
  const oldRead = new Promise<void>((resolve) => {
    releaseOld = resolve;
  });
  // The first read sees the domains before a change, and answers last.
  const first = directory.refresh(async () => {
    const rows = [facts(1, 'a.example')];
    await oldRead;
    return rows;
  });
  const second = directory.refresh(async () => [facts(1, 'a.example'), facts(2, 'b.example')]);
  releaseOld();
  await Promise.all([first, second]);
  expect(directory.byHost('b.example')?.id).toBe(2);
});

test('a failed read leaves the domains as they were and later refreshes still run', async () => {
  const directory = new DomainDirectory();
  directory.replace([facts(1, 'a.example')]);
  await expect(directory.refresh(() => Promise.reject(new Error('database gone')))).rejects.toThrow('database gone');
  await directory.refresh(async () => [facts(1, 'a.example'), facts(3, 'c.example')]);
  expect(directory.all().map((d) => d.host)).toEqual(['a.example', 'c.example']);
});

test('seen times: kept by id across refreshes, only moving forward, for ids past the first slots', () => {
  const directory = new DomainDirectory();
  directory.replace([facts(1, 'a.example')]);
  directory.noteSeen(1, 1000);
  directory.noteSeen(1, 500);
  // An id not known yet is ignored (a domain deleted meanwhile, or not read yet).
  directory.noteSeen(70, 2000);
  expect(directory.seenSince(70)).toBeNull();
  directory.replace([facts(1, 'a.example'), facts(70, 'far.example')]);
  expect(directory.seenSince(1)).toBe(1000);
  directory.noteSeen(70, 3000);
  expect(directory.seenSince(70)).toBe(3000);
  expect(directory.unwrittenSeen()).toEqual([
    { id: 1, at: 1000 },
    { id: 70, at: 3000 },
  ]);
  directory.seenWritten([{ id: 1, at: 1000 }]);
  expect(directory.unwrittenSeen()).toEqual([{ id: 70, at: 3000 }]);
  directory.noteSeen(1, 4000);
  expect(directory.unwrittenSeen()).toEqual([
    { id: 1, at: 4000 },
    { id: 70, at: 3000 },
  ]);
});
