/**
 * A run's secret sealed to a node's key (imports/seal.ts): opened by that node for that run
 * only; another node's key, another run's id or an altered copy open nothing.
 */
import { expect, test } from 'bun:test';
import { NodeKey, seal } from '../../../src/modules/imports/seal';

test('a sealed secret opens only with its node’s key and for its run', async () => {
  const [mine, other] = await Promise.all([NodeKey.create(), NodeKey.create()]);
  const secret = JSON.stringify({ url: 'https://s.example.com/?key=abc', token: 'tok-123' });
  const sealed = await seal(mine.publicKey, 'imp_one', secret);
  expect(sealed).not.toContain('tok-123');
  expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('tok-123');
  expect(await mine.open(sealed, 'imp_one')).toBe(secret);
  expect(await mine.open(sealed, 'imp_two')).toBeNull();
  expect(await other.open(sealed, 'imp_one')).toBeNull();
  const bytes = Buffer.from(sealed, 'base64');
  bytes[bytes.length - 1]! ^= 1;
  expect(await mine.open(bytes.toString('base64'), 'imp_one')).toBeNull();
  // Each sealing is new: the same secret twice is two different copies.
  expect(await seal(mine.publicKey, 'imp_one', secret)).not.toBe(sealed);
});
