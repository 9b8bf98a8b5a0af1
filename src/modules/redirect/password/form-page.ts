/**
 * The password form of a protected link (docs/behaviour.md, "Password-protected links"): one
 * self-contained page (no script, no external asset, one inline stylesheet allowed by its hash
 * under the dashboard's CSP), light and dark, never cached, never indexed. Its form posts to the
 * page's own address (no `action`: the visitor's query goes along, for links that forward it).
 * The slug comes from the request path and is escaped like any other value written here.
 */
import { htmlSecurityHeaders } from '../../../http/html-headers';

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f6f7f9;color:#1f2328}
main{box-sizing:border-box;width:min(24rem,100% - 2rem);padding:2rem 1.75rem;background:#fff;border:1px solid #d0d7de;border-radius:12px}
h1{font-size:1.3rem;margin:0 0 .5rem}p{line-height:1.5;color:#57606a;margin:0 0 1.25rem}
code{font-size:.95em;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin-bottom:.4rem}
input{box-sizing:border-box;width:100%;font:inherit;padding:.55rem .7rem;border:1px solid #8c959f;border-radius:6px;background:#fff;color:inherit}
input:focus-visible,button:focus-visible{outline:3px solid #0969da;outline-offset:2px}
input[aria-invalid=true]{border-color:#cf222e}
.error{color:#cf222e;margin:.5rem 0 0;font-weight:500}
button{margin-top:1.25rem;width:100%;font:inherit;font-weight:600;padding:.6rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}
button:hover{background:#1a5fcc}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}main{background:#161b22;border-color:#30363d}
p{color:#9198a1}input{background:#0d1117;border-color:#6e7681}input[aria-invalid=true]{border-color:#f85149}
.error{color:#ff7b72}input:focus-visible,button:focus-visible{outline-color:#4493f8}}
`;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // The form and its answers differ per visitor and per attempt: nothing may keep them.
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  // The right password is answered by the link's redirect, to any http(s) destination: the
  // form's CSP must let the submission follow it (the page has no script and nothing injected).
  ...htmlSecurityHeaders({ styles: [STYLE], formTargets: ['http:', 'https:'] }),
};

/** Why the form is shown again, or nothing: the first time. */
export type FormProblem =
  | { kind: 'wrong' }
  | { kind: 'unreadable' }
  | { kind: 'tooLarge' }
  | { kind: 'throttled'; retryAfter: number }
  | { kind: 'busy'; retryAfter: number }
  /** The check waited and got no answer (no slot in time, the server stopping): 503. */
  | { kind: 'unavailable'; retryAfter: number };

const STATUS: Record<FormProblem['kind'], number> = {
  wrong: 401,
  unreadable: 400,
  tooLarge: 413,
  throttled: 429,
  busy: 429,
  unavailable: 503,
};

function messageOf(problem: FormProblem): string {
  switch (problem.kind) {
    case 'wrong':
      return 'That password is not right. Try again.';
    case 'unreadable':
    case 'tooLarge':
      return 'The form could not be read. Enter the password again.';
    case 'throttled':
      return `Too many wrong passwords. Try again in ${Math.ceil(problem.retryAfter / 60)} min.`;
    case 'busy':
      return 'Too many attempts at once. Try again in a moment.';
    case 'unavailable':
      return `The server is too busy to check the password right now. Try again in ${problem.retryAfter} seconds.`;
  }
}

/** The page's HTML; `slug` as it appeared in the request path (escaped here all the same). */
export function formHtml(slug: string, problem: FormProblem | null): string {
  const message = problem && messageOf(problem);
  const invalid = message ? ' aria-invalid="true" aria-describedby="password-error"' : '';
  const error = message ? `\n<p id="password-error" class="error" role="alert">${Bun.escapeHTML(message)}</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Password required</title>
<style>${STYLE}</style></head>
<body><main>
<h1>Password required</h1>
<p>The link <code>/${Bun.escapeHTML(slug)}</code> is protected. Enter its password to continue.</p>
<form method="post">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autofocus autocomplete="current-password" maxlength="128"${invalid}>${error}
<button type="submit">Continue</button>
</form>
</main></body></html>
`;
}

/** The form as an answer: 200 the first time, else the problem's status (429s and 503 with Retry-After); `head`: no body. */
export function formResponse(slug: string, problem: FormProblem | null = null, head = false): Response {
  const headers: Record<string, string> = { ...HEADERS };
  if (problem && 'retryAfter' in problem) headers['retry-after'] = String(problem.retryAfter);
  return new Response(head ? null : formHtml(slug, problem), { status: problem ? STATUS[problem.kind] : 200, headers });
}
