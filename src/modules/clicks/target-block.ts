/**
 * A link's block: the strings a click needs of its link (slug, id, location, params JSON) and
 * the target's serial, packed in bytes. The slug index (redirect/link-table.ts) keeps every
 * link's block in one arena; a buffered click keeps the arena and the offset of its link's
 * block (record.ts), and the flush reads the click's link id and params from it (flusher.ts).
 *
 * Layout: u32 serial, u16 slug length, u16 id length, u32 location length, u32 params length
 * (0: `{}`), then the bytes of each in that order. Slugs, ids and locations are ASCII (slug and
 * id rules; applyParams escapes everything else), one byte per character; params are UTF-8.
 */

export const BLOCK_HEADER = 16;
export const NO_PARAMS_JSON = '{}';

export interface BlockFields {
  serial: number;
  slug: string;
  id: string;
  location: string;
  paramsJson: string;
}

/** The bytes `fields` take; throws when a field that must be ASCII is not (it would be garbled). */
export function blockSize(fields: BlockFields): number {
  for (const [name, text] of [
    ['slug', fields.slug],
    ['link id', fields.id],
    ['location', fields.location],
  ] as const)
    for (let i = 0; i < text.length; i++)
      if (text.charCodeAt(i) > 0x7f) throw new Error(`a link block's ${name} is not ASCII: ${JSON.stringify(text)}`);
  const params = fields.paramsJson === NO_PARAMS_JSON ? 0 : Buffer.byteLength(fields.paramsJson, 'utf8');
  return BLOCK_HEADER + fields.slug.length + fields.id.length + fields.location.length + params;
}

/** Writes a block at `at` (room checked by the caller with blockSize); returns its length. */
export function writeBlock(arena: Buffer, at: number, fields: BlockFields): number {
  const params = fields.paramsJson === NO_PARAMS_JSON ? '' : fields.paramsJson;
  arena.writeUInt32LE(fields.serial, at);
  arena.writeUInt16LE(fields.slug.length, at + 4);
  arena.writeUInt16LE(fields.id.length, at + 6);
  arena.writeUInt32LE(fields.location.length, at + 8);
  let p = at + BLOCK_HEADER;
  p += arena.write(fields.slug, p, 'latin1');
  p += arena.write(fields.id, p, 'latin1');
  p += arena.write(fields.location, p, 'latin1');
  const paramsBytes = params === '' ? 0 : arena.write(params, p, 'utf8');
  arena.writeUInt32LE(paramsBytes, at + 12);
  return p + paramsBytes - at;
}

export function blockSerial(arena: Buffer, at: number): number {
  return arena.readUInt32LE(at);
}

export function blockSlug(arena: Buffer, at: number): string {
  const start = at + BLOCK_HEADER;
  return arena.toString('latin1', start, start + arena.readUInt16LE(at + 4));
}

export function blockLinkId(arena: Buffer, at: number): string {
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

/** The whole block's length. */
export function blockLength(arena: Buffer, at: number): number {
  return (
    BLOCK_HEADER +
    arena.readUInt16LE(at + 4) +
    arena.readUInt16LE(at + 6) +
    arena.readUInt32LE(at + 8) +
    arena.readUInt32LE(at + 12)
  );
}
