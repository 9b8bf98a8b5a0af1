/**
 * Every call the dashboard makes: JSON over fetch with the session cookie (same origin only),
 * failures turned into the API's own {code, message, field}. A 403 session_required from any
 * call means the session ended: the registered handler sends the person to sign-in. The API's
 * messages are put in a person's words here, once for every form (lib/field-message.ts).
 */
import { fieldMessage } from '../lib/field-message';

export interface ApiError {
  code: string;
  message: string;
  field: string | null;
  status: number;
}

export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
    this.name = 'ApiFailure';
  }
}

let onSessionEnded: () => void = () => {};

/** Called whenever the server answers 403 session_required. */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

/** The API's error body, or one in the same shape for answers that carry none (a proxy's 502). */
async function failureOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: Partial<ApiError> };
    if (body.error && typeof body.error.code === 'string') {
      const field = typeof body.error.field === 'string' ? body.error.field : null;
      return {
        code: body.error.code,
        message: fieldMessage(field, String(body.error.message ?? body.error.code)),
        field,
        status: response.status,
      };
    }
  } catch {}
  return {
    code: 'http_error',
    message: `The server answered ${response.status}`,
    field: null,
    status: response.status,
  };
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  // A form (a file upload) goes as multipart: the browser writes its content type and boundary.
  const form = body instanceof FormData;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined || form ? { accept: 'application/json' } : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    });
  } catch {
    throw new ApiFailure({ code: 'network_error', message: 'Could not reach the server', field: null, status: 0 });
  }
  if (!response.ok) {
    const error = await failureOf(response);
    if (error.status === 403 && error.code === 'session_required') onSessionEnded();
    throw new ApiFailure(error);
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** The error of a failed call, whatever was thrown. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiFailure) return err.error;
  return { code: 'client_error', message: err instanceof Error ? err.message : String(err), field: null, status: 0 };
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  del: <T = void>(path: string, body?: unknown) => request<T>('DELETE', path, body),
};

/** `/path?a=1&b=2` from the values that are set. */
export function withQuery(path: string, query: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
