/**
 * A click target's block: what a click needs of the link (or variant) it went to, packed in
 * bytes. The slug index (redirect/link-table.ts) keeps every link's entry in one arena: the
 * link's block, then one block per variant. A buffered click keeps the arena and the offsets of
 * its link's block and of its variant's (record.ts); the flush reads the click's ids, params and
 * serial from them (flusher.ts).
 *
 * Layout: u32 serial, u16 key length, u16 id length, u32 location length, u32 params length
 * (0: `{}`), u32 link value, u32 click target, then the bytes of each in that order. The link
 * value and click target are the ids the PostgreSQL click writer names the click with (the
 * link's dictionary value; the target's row, in a link's block only, for a click with no code
 * or rule), as the database held them when the block was written; 0 when not known (SQLite, or a
 * target not stored yet): the writer then looks them up. The key is a link's slug or a variant's code;
 * the id is the link's or the variant's. Keys, ids and locations are ASCII (slug, code and id
 * rules; applyParams escapes everything else), one byte per character; params are UTF-8.
 */

const BLOCK_HEADER = 24;
export const NO_PARAMS_JSON = '{}';

export interface BlockFields {
  serial: number;
  /** A link's slug or a variant's code. */
  key: string;
  id: string;
  location: string;
  paramsJson: string;
  /** The link's dictionary value id on PostgreSQL, 0 when not known. */
  valueId?: number;
  /** The click target id of this block's location and params on PostgreSQL, 0 when not known. */
  targetId?: number;
}

/** The bytes `fields` take; throws when a field that must be ASCII is not (it would be garbled). */
export function blockSize(fields: BlockFields): number {
  for (const [name, text] of [
    ['key', fields.key],
    ['id', fields.id],
    ['location', fields.location],
  ] as const)
    for (let i = 0; i < text.length; i++)
      if (text.charCodeAt(i) > 0x7f) throw new Error(`a target block's ${name} is not ASCII: ${JSON.stringify(text)}`);
  const params = fields.paramsJson === NO_PARAMS_JSON ? 0 : Buffer.byteLength(fields.paramsJson, 'utf8');
  return BLOCK_HEADER + fields.key.length + fields.id.length + fields.location.length + params;
}

/** Writes a block at `at` (room checked by the caller with blockSize); returns its length. */
export function writeBlock(arena: Buffer, at: number, fields: BlockFields): number {
  arena.writeUInt32LE(fields.serial, at);
  arena.writeUInt16LE(fields.key.length, at + 4);
  arena.writeUInt16LE(fields.id.length, at + 6);
  arena.writeUInt32LE(fields.location.length, at + 8);
  arena.writeUInt32LE(fields.valueId ?? 0, at + 16);
  arena.writeUInt32LE(fields.targetId ?? 0, at + 20);
  let p = at + BLOCK_HEADER;
  p += arena.write(fields.key, p, 'latin1');
  p += arena.write(fields.id, p, 'latin1');
  p += arena.write(fields.location, p, 'latin1');
  const params = fields.paramsJson === NO_PARAMS_JSON ? 0 : arena.write(fields.paramsJson, p, 'utf8');
  arena.writeUInt32LE(params, at + 12);
  return p + params - at;
}

export function blockSerial(arena: Buffer, at: number): number {
  return arena.readUInt32LE(at);
}

/** The link's dictionary value id (PostgreSQL), 0 when not known. */
export function blockValueId(arena: Buffer, at: number): number {
  return arena.readUInt32LE(at + 16);
}

/** The click target id of the block's location and params (PostgreSQL), 0 when not known. */
export function blockTargetId(arena: Buffer, at: number): number {
  return arena.readUInt32LE(at + 20);
}

export function blockKey(arena: Buffer, at: number): string {
  const start = at + BLOCK_HEADER;
  return arena.toString('latin1', start, start + arena.readUInt16LE(at + 4));
}

export function blockId(arena: Buffer, at: number): string {
  const start = at + BLOCK_HEADER + arena.readUInt16LE(at + 4);
  return arena.toString('latin1', start, start + arena.readUInt16LE(at + 6));
}

export function blockLocation(arena: Buffer, at: number): string {
  const start = at + BLOCK_HEADER + arena.readUInt16LE(at + 4) + arena.readUInt16LE(at + 6);
  return arena.toString('latin1', start, start + arena.readUInt32LE(at + 8));
}

export function blockParamsJson(arena: Buffer, at: number): string {
  const length = arena.readUInt32LE(at + 12);
  if (length === 0) return NO_PARAMS_JSON;
  const start =
    at + BLOCK_HEADER + arena.readUInt16LE(at + 4) + arena.readUInt16LE(at + 6) + arena.readUInt32LE(at + 8);
  return arena.toString('utf8', start, start + length);
}

/** The whole block's length: the next block starts there. */
export function blockLength(arena: Buffer, at: number): number {
  return (
    BLOCK_HEADER +
    arena.readUInt16LE(at + 4) +
    arena.readUInt16LE(at + 6) +
    arena.readUInt32LE(at + 8) +
    arena.readUInt32LE(at + 12)
  );
}

/** Whether the block's key is `key` (ASCII), compared in place. */
export function blockKeyIs(arena: Buffer, at: number, key: string): boolean {
  return bytesAre(arena, at + BLOCK_HEADER, arena.readUInt16LE(at + 4), key);
}

/** Whether the block's id is `id` (ASCII), compared in place. */
export function blockIdIs(arena: Buffer, at: number, id: string): boolean {
  return bytesAre(arena, at + BLOCK_HEADER + arena.readUInt16LE(at + 4), arena.readUInt16LE(at + 6), id);
}

function bytesAre(arena: Buffer, start: number, length: number, text: string): boolean {
  if (length !== text.length) return false;
  for (let i = 0; i < length; i++) if (arena[start + i] !== text.charCodeAt(i)) return false;
  return true;
}
