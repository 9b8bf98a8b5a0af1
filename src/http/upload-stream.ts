/**
 * A multipart upload read as it arrives (an import's file: json-body.ts, MAX_UPLOAD_BYTES): its
 * text fields kept, its file part written to a temporary file chunk by chunk, so a file near the
 * bound is never held in memory (a form parsed whole held it two or three times over, and the
 * run that reads it held it for its whole length). The bound is counted on the bytes read, so a
 * body sent without a length (chunked) stops at it too. The caller removes the file (`remove`);
 * a process killed meanwhile leaves it, so its name carries the process id, and a start removes
 * those of processes that are gone (removeOrphanUploads).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppError, invalid } from '../lib/errors';
import { processAlive } from '../lib/process-alive';

export interface StreamedUpload {
  /** The text fields, by name (the last of a name wins). */
  fields: Record<string, string>;
  /** The file part (the first one), on disk; null when the form had none. */
  file: { path: string; blob: Blob } | null;
  /** Removes the temporary file; safe to call more than once. */
  remove(): void;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const PREFIX = 'slink-upload-';

/** Removes the uploads left by processes that are gone (killed while their run read the file); how many. */
export function removeOrphanUploads(): number {
  let removed = 0;
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^slink-upload-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(tmpdir(), name), { force: true });
    removed++;
  }
  return removed;
}

/** What the form may hold beside its file's bytes (json-body.ts, MAX_UPLOAD_FORM_BYTES). */
const FORM_BYTES = 64 * 1024;

/** Longest part headers accepted (a name, a file name, a type). */
const MAX_HEADERS = 16 * 1024;

function boundaryOf(contentType: string): string | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function dispositionOf(headers: string): { name: string | null; filename: string | null } {
  const line = headers.split('\r\n').find((h) => /^content-disposition:/i.test(h)) ?? '';
  const name = /;\s*name="([^"]*)"/i.exec(line)?.[1] ?? null;
  const filename = /;\s*filename="([^"]*)"/i.exec(line)?.[1] ?? null;
  return { name, filename };
}

/**
 * Reads `request`'s multipart body: fields in memory, the file part to a temporary file of at
 * most `limit` bytes, with at most 64 KiB of form around it (413 `payload_too_large` past
 * either, the file removed).
 */
export async function streamUpload(request: Request, limit: number, tooLarge: () => AppError): Promise<StreamedUpload> {
  // The form around the file: its part headers, the boundaries and the other fields (short texts).
  const formLimit = limit + FORM_BYTES;
  let fileBytes = 0;
  const boundary = boundaryOf(request.headers.get('content-type') ?? '');
  if (boundary === null || request.body === null) throw invalid('file', 'file must be a file sent in a multipart form');
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const path = join(tmpdir(), `${PREFIX}${process.pid}-${randomBytes(12).toString('hex')}`);
  let sink: ReturnType<ReturnType<typeof Bun.file>['writer']> | null = null;
  let filePart = false;
  const remove = () => rmSync(path, { force: true });
  const fields: Record<string, string> = {};
  let fieldName: string | null = null;
  let fieldBytes: Buffer[] = [];
  let fileSeen = false;
  // What is not yet decided: the start (before the first boundary), a part's headers, or a
  // part's body's last bytes (which may begin the next delimiter). The first boundary has no
  // line break before it: one is put there, so every delimiter reads the same.
  let pending = Buffer.from(CRLF);
  let state: 'preamble' | 'headers' | 'body' | 'done' = 'preamble';
  let read = 0;
  const emit = (bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (filePart) {
      fileBytes += bytes.length;
      if (fileBytes > limit) throw tooLarge();
      sink!.write(bytes);
    } else if (fieldName !== null) fieldBytes.push(bytes);
  };
  const endPart = async () => {
    if (filePart) {
      await sink!.end();
      sink = null;
      filePart = false;
    } else if (fieldName !== null) fields[fieldName] = Buffer.concat(fieldBytes).toString('utf8');
    fieldName = null;
    fieldBytes = [];
  };
  try {
    for await (const chunk of request.body) {
      read += chunk.length;
      if (read > formLimit) throw tooLarge();
      pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk]);
      for (;;) {
        if (state === 'preamble' || state === 'body') {
          const at = pending.indexOf(delimiter);
          if (at < 0) {
            // Everything but what could be the delimiter's start is decided.
            const keep = Math.min(pending.length, delimiter.length - 1);
            if (state === 'body') emit(pending.subarray(0, pending.length - keep));
            pending = Buffer.from(pending.subarray(pending.length - keep));
            break;
          }
          if (state === 'body') {
            emit(pending.subarray(0, at));
            await endPart();
          }
          const after = pending.subarray(at + delimiter.length);
          if (after.length < 2) break;
          if (after[0] === 0x2d && after[1] === 0x2d) {
            state = 'done';
            break;
          }
          pending = Buffer.from(after.subarray(2));
          state = 'headers';
        } else if (state === 'headers') {
          const end = pending.indexOf(HEADERS_END);
          if (end < 0) {
            if (pending.length > MAX_HEADERS) throw invalid('file', 'a part of the form has headers too long');
            break;
          }
          const { name, filename } = dispositionOf(pending.subarray(0, end).toString('utf8'));
          pending = Buffer.from(pending.subarray(end + HEADERS_END.length));
          if (filename !== null && name === 'file' && !fileSeen) {
            fileSeen = true;
            filePart = true;
            // Made here, new (never a file or link already there) and readable by this user only:
            // an upload may be another Slink's export, with its links' password hashes.
            closeSync(openSync(path, 'wx', 0o600));
            sink = Bun.file(path).writer({ highWaterMark: 1 << 20 });
          } else if (filename === null) fieldName = name;
          state = 'body';
        } else break;
      }
      if (state === 'done') break;
    }
    if (state !== 'done') throw invalid('file', 'the multipart form ended before its last boundary');
  } catch (err) {
    await sink?.end();
    remove();
    throw err;
  }
  const file = fileSeen ? { path, blob: Bun.file(path) } : null;
  if (!fileSeen) remove();
  return { fields, file, remove };
}
