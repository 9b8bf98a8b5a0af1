/**
 * A file run's file (csv, slink), read once: its bytes pass to the source as the source asks for
 * them and are hashed on the way, so the run can say at any moment which bytes it has read (how
 * many, and their SHA-256: its mark), saved with its position after each page and at its end.
 * A later run of a file resumes from a stopped run's position only when its file starts with the
 * very bytes that run had read (startsWith): the links before that position are then the same
 * links. A file that differs anywhere in them starts at its beginning; a run that ended `done`
 * read its whole file, so the same file again starts at its beginning too.
 */

/** The file's bytes as the source reads them, counted and hashed as they pass. */
export class FileReading {
  private readonly hasher = new Bun.CryptoHasher('sha256');
  private bytes = 0;
  /** What the source reads: pulled a chunk at a time (nothing read ahead of it). */
  readonly stream: ReadableStream<Uint8Array>;

  constructor(file: ReadableStream<Uint8Array>) {
    const reader = file.getReader();
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          // Counted and hashed together: a mark taken between two chunks names exactly the bytes before.
          this.hasher.update(value);
          this.bytes += value.byteLength;
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  }

  /** The bytes read so far: `<count>:<sha256 hex>`. */
  mark(): string {
    return `${this.bytes}:${this.hasher.copy().digest('hex')}`;
  }
}

/** A position saved with the mark of the bytes read by then: `<position>@<count>:<sha256>`. */
export function markedCursor(cursor: string | null, mark: string): string {
  return `${cursor ?? ''}@${mark}`;
}

interface Marked {
  /** The source's own cursor (null: the first page). */
  cursor: string | null;
  bytes: number;
  hash: string;
}

/** A saved cursor's parts, null when it carries no mark (a run of no file, or saved before marks were). */
export function parseMarked(saved: string | null): Marked | null {
  if (saved === null) return null;
  const at = saved.lastIndexOf('@');
  const match = at === -1 ? null : /^(\d+):([0-9a-f]{64})$/.exec(saved.slice(at + 1));
  if (match === null) return null;
  return { cursor: at === 0 ? null : saved.slice(0, at), bytes: Number(match[1]), hash: match[2]! };
}

/** The source's cursor of a saved one, its mark (if any) taken off. */
export function cursorOf(saved: string | null): string | null {
  const marked = parseMarked(saved);
  return marked === null ? saved : marked.cursor;
}

/** Whether `file` starts with the bytes a mark names (reads only as many). */
export async function startsWith(file: Blob, mark: Pick<Marked, 'bytes' | 'hash'>): Promise<boolean> {
  if (file.size < mark.bytes) return false;
  const hasher = new Bun.CryptoHasher('sha256');
  for await (const chunk of file.slice(0, mark.bytes).stream() as unknown as AsyncIterable<Uint8Array>)
    hasher.update(chunk);
  return hasher.digest('hex') === mark.hash;
}

/** The most of a file fileHead reads when it has no line break sooner. */
const HEAD_MAX = 64 * 1024;

/**
 * The SHA-256 of a file's first line, its line break included (of its first 64 KiB when it has
 * none sooner): what every run whose mark the file starts with read first (a source reads its
 * header before any page), so those runs are found by it (ImportStore.fileRuns).
 */
export async function fileHead(file: Blob): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  const reader = file.slice(0, HEAD_MAX).stream().getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const nl = value.indexOf(10);
      hasher.update(nl === -1 ? value : value.subarray(0, nl + 1));
      if (nl !== -1) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return hasher.digest('hex');
}
