/**
 * An upload read as it arrives (src/http/upload-stream.ts): whatever sizes the body's chunks
 * come in (a delimiter cut anywhere), the fields and the file's bytes come out whole, the file
 * on disk until removed; past the bound it stops with the error given.
 */
import { expect, test } from 'bun:test';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeOrphanUploads, streamUpload } from '../../src/http/upload-stream';
import { AppError } from '../../src/lib/errors';

const tooLarge = () => new AppError('payload_too_large', 'too large');

function requestOf(body: Uint8Array, chunk: number): Request {
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= body.length) return controller.close();
      controller.enqueue(body.slice(at, at + chunk));
      at += chunk;
    },
  });
  return new Request('http://localhost/api/v1/imports', {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary="xYz"' },
    body: stream,
  });
}

const file = `url\n${Array.from({ length: 300 }, (_, i) => `https://example.com/${i}\r\n--xY`).join('\n')}\n`;
const body = new TextEncoder().encode(
  'preamble\r\n--xYz\r\nContent-Disposition: form-data; name="source"\r\n\r\ncsv\r\n' +
    `--xYz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${file}\r\n` +
    '--xYz\r\nContent-Disposition: form-data; name="dryRun"\r\n\r\ntrue\r\n--xYz--\r\n',
);

test('fields and the file whole whatever the chunks; the file removed on request', async () => {
  for (const chunk of [1, 2, 3, 5, 7, 64, 4096, body.length]) {
    const upload = await streamUpload(requestOf(body, chunk), 1 << 20, tooLarge);
    expect({ chunk, fields: upload.fields }).toEqual({ chunk, fields: { source: 'csv', dryRun: 'true' } });
    expect(await upload.file!.blob.text()).toBe(file);
    // Only this process's user reads it: an export carries password hashes.
    expect(statSync(upload.file!.path).mode & 0o777).toBe(0o600);
    upload.remove();
    expect(existsSync(upload.file!.path)).toBe(false);
  }
});

test('past the bound: the error given', async () => {
  const err = await streamUpload(requestOf(body, 100), 1000, tooLarge).catch((e) => e);
  expect(err).toBeInstanceOf(AppError);
  expect(err.code).toBe('payload_too_large');
});

test('a form cut before its last boundary is 400 naming the file', async () => {
  const err = await streamUpload(requestOf(body.slice(0, body.length - 12), 50), 1 << 20, tooLarge).catch((e) => e);
  expect({ code: err.code, field: err.field }).toEqual({ code: 'invalid_request', field: 'file' });
});

test('a start removes the uploads of processes that are gone (killed mid-run), not those of live ones', async () => {
  const gone = Bun.spawn(['true']);
  await gone.exited;
  const orphan = join(tmpdir(), `slink-upload-${gone.pid}-orphan`);
  const mine = join(tmpdir(), `slink-upload-${process.pid}-mine`);
  writeFileSync(orphan, 'x');
  writeFileSync(mine, 'x');
  try {
    removeOrphanUploads();
    expect([existsSync(orphan), existsSync(mine)]).toEqual([false, true]);
  } finally {
    for (const path of [orphan, mine])
      Bun.file(path)
        .delete()
        .catch(() => {});
  }
});
