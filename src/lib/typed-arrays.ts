/** Growing typed arrays that hold per-slot or per-id state (the slug index, the writer's sums, counts). */

type Growable =
  | Uint8Array<ArrayBuffer>
  | Uint16Array<ArrayBuffer>
  | Uint32Array<ArrayBuffer>
  | Int32Array<ArrayBuffer>
  | Float64Array<ArrayBuffer>;

/**
 * `a` when it has room for `need` elements, else a copy of it of the same kind, doubled until it
 * has (new elements zero): callers keep the returned array.
 */
export function grown<T extends Growable>(a: T, need: number): T {
  if (need <= a.length) return a;
  let size = Math.max(1, a.length);
  while (size < need) size *= 2;
  const next = new (a.constructor as new (length: number) => T)(size);
  next.set(a as never);
  return next;
}
