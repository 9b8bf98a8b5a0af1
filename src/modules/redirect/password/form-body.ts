/**
 * The password form's body: `application/x-www-form-urlencoded` with a `password` field, read
 * with a cap however it is sent (a chunked body has no Content-Length to check first), so a
 * visitor cannot make the short host hold more than MAX_FORM_BYTES per request.
 */

/** A form of one password field (at most 128 characters, encoded up to 9 bytes each) fits with room. */
export const MAX_FORM_BYTES = 4096;

export type FormBody = { password: string } | 'unreadable' | 'tooLarge';

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

async function cappedText(request: Request): Promise<string | 'tooLarge'> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_FORM_BYTES) return 'tooLarge';
  if (request.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > MAX_FORM_BYTES) return 'tooLarge';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The submitted password, or why there is none to check. */
export async function readPasswordForm(request: Request): Promise<FormBody> {
  if (!FORM_TYPE.test(request.headers.get('content-type') ?? '')) return 'unreadable';
  const text = await cappedText(request);
  if (text === 'tooLarge') return text;
  const password = new URLSearchParams(text).get('password');
  return password === null || password === '' ? 'unreadable' : { password };
}
