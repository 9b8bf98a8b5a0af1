/**
 * Prints the authorisation matrix as docs/behaviour.md publishes it ("Who may do what"): one row
 * per action of src/modules/access/matrix.ts, one column per kind of caller, each cell what a real
 * request answers (allowed, or the status and code of the refusal), then the routes of each
 * action (src/http/route-actions.ts). test/modules/access/matrix-doc.test.ts fails when the doc
 * differs from this output, and test/modules/access/matrix.test.ts makes one request per cell.
 *
 *   bun run scripts/matrix-doc.ts           prints the generated part
 *   bun run scripts/matrix-doc.ts --write   replaces it in docs/behaviour.md
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATUS_BY_CODE } from '../src/http/errors';
import { ROUTE_ACTIONS } from '../src/http/route-actions';
import { ACTIONS, type Access, type Action, accessOf, MATRIX, refusal } from '../src/modules/access/public';
import type { AccountRow, Role } from '../src/modules/auth/table';

export type Credential = 'session' | 'write' | 'read' | 'create';

/** A kind of caller: a column of the published matrix. */
export interface CallerKind {
  id: string;
  label: string;
  role: Role;
  credential: Credential;
  /** Its account is limited to projects. */
  limited: boolean;
}

const kind = (role: Role, credential: Credential, label: string, limited = false): CallerKind => ({
  id: `${role}-${credential}${limited ? '-limited' : ''}`,
  label,
  role,
  credential,
  limited,
});

export const CALLER_KINDS: readonly CallerKind[] = [
  kind('admin', 'session', 'admin session'),
  kind('admin', 'write', 'admin write key'),
  kind('admin', 'read', 'admin read key'),
  kind('editor', 'session', 'editor session'),
  kind('editor', 'write', 'editor write key'),
  kind('editor', 'read', 'editor read key'),
  kind('editor', 'create', 'editor create key'),
  kind('viewer', 'session', 'viewer session'),
  kind('viewer', 'read', 'viewer read key'),
  kind('viewer', 'create', 'viewer create key'),
  kind('viewer', 'write', "viewer's old write key"),
  kind('editor', 'session', 'editor limited to projects', true),
];

/** The Access a caller of this kind gets (accessOf, as the guards make it). */
export function accessFor(caller: CallerKind): Access {
  const account = {
    id: 'acc_matrix',
    role: caller.role,
    projects: caller.limited ? ['prj_matrix'] : null,
  } as AccountRow;
  const scope = caller.credential === 'session' ? 'write' : caller.credential;
  const key = { id: 'key_matrix', scope, projects: null, domains: null };
  return accessOf({ account, key }, caller.credential === 'session' ? 'dashboard' : 'api');
}

/** The routes where the services ask an action that no route performs as a whole. */
const ASKED_BY_SERVICES: Partial<Record<Action, readonly string[]>> = {
  'link.slug': [
    'POST /api/v1/links (with `slug`)',
    'PATCH /api/v1/links/:id (`slug` or `domain`)',
    'POST /api/v1/links/bulk/create (with slugs)',
  ],
  'key.any': ["DELETE /api/app/keys/:id (another account's key)"],
};

/** Actions whose refusal is answered as no such target: "not yours" never leaks (another's key). */
const REFUSED_AS_NOT_FOUND: ReadonlySet<Action> = new Set(['key.any']);

/** The routes of an action, as `METHOD /path`. */
export function routesOf(action: Action): string[] {
  const routed = ROUTE_ACTIONS.filter(([, , a]) => a === action).map(([method, path]) => `${method} ${path}`);
  return [...routed, ...(ASKED_BY_SERVICES[action] ?? [])];
}

/**
 * Whether a key can reach the action at all: the dashboard's endpoints take a session only. An
 * action no route performs yet is published as the matrix has it.
 */
function keyReaches(action: Action): boolean {
  const routes = routesOf(action);
  return routes.length === 0 || routes.some((route) => route.includes(' /api/v1/'));
}

export type Cell = { allowed: true } | { allowed: false; status: number; code: string };

/** What a request of `caller` to a route of `action` answers. */
export function expectedCell(caller: CallerKind, action: Action): Cell {
  if (caller.credential !== 'session' && !keyReaches(action)) {
    return { allowed: false, status: STATUS_BY_CODE.session_required, code: 'session_required' };
  }
  const refused = refusal(accessFor(caller), action);
  if (refused === null) return { allowed: true };
  const code = REFUSED_AS_NOT_FOUND.has(action) ? 'not_found' : refused.code;
  return { allowed: false, status: STATUS_BY_CODE[code], code };
}

const cellText = (cell: Cell): string => (cell.allowed ? 'allowed' : `${cell.status} \`${cell.code}\``);

/** The generated part of docs/behaviour.md, between its markers. */
export function matrixMarkdown(): string {
  const lines: string[] = [];
  lines.push(`| action | ${CALLER_KINDS.map((c) => c.label).join(' | ')} |`);
  lines.push(`|---|${CALLER_KINDS.map(() => '---').join('|')}|`);
  for (const action of ACTIONS) {
    const cells = CALLER_KINDS.map((caller) => cellText(expectedCell(caller, action)));
    lines.push(`| \`${action}\` | ${cells.join(' | ')} |`);
  }
  lines.push('');
  lines.push('| action | what | routes |');
  lines.push('|---|---|---|');
  for (const action of ACTIONS) {
    const routes = routesOf(action).map((route) => route.replace(/^(\S+ \S+)(.*)$/, '`$1`$2'));
    lines.push(`| \`${action}\` | ${MATRIX[action].what} | ${routes.join(', ') || '(no route yet)'} |`);
  }
  return lines.join('\n');
}

export const DOC = join(import.meta.dir, '..', 'docs', 'behaviour.md');
export const BEGIN = '<!-- generated by scripts/matrix-doc.ts (bun run scripts/matrix-doc.ts --write) -->';
export const END = '<!-- end of the generated matrix -->';

/** The generated part as docs/behaviour.md has it now, or null when its markers are missing. */
export function publishedMatrix(doc: string): string | null {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) return null;
  return doc.slice(from + BEGIN.length, to).trim();
}

if (import.meta.main) {
  const generated = matrixMarkdown();
  if (process.argv.includes('--write')) {
    const doc = readFileSync(DOC, 'utf8');
    if (publishedMatrix(doc) === null) throw new Error(`${DOC} has no generated matrix markers`);
    const from = doc.indexOf(BEGIN) + BEGIN.length;
    writeFileSync(DOC, `${doc.slice(0, from)}\n\n${generated}\n\n${doc.slice(doc.indexOf(END))}`);
  } else {
    console.log(generated);
  }
}
