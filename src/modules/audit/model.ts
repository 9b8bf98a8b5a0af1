/** Audit log schemas: the single source for validation, TypeScript types and OpenAPI. */
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { NextCursor, nullable, oneOf, pageQuery } from '../../http/models';
import { AUDIT_TARGET_TYPES } from './entry';

/** Entries kept (docs/behaviour.md, "Audit log"): older ones are pruned. */
export const AUDIT_KEPT_DAYS = 365;

const text = (field: string, maxLength: number, description: string) =>
  t.Optional(
    t.String({
      minLength: 1,
      maxLength,
      description,
      error: fieldError(field, `${field} must be 1 to ${maxLength} characters`),
    }),
  );

export const AuditQuery = t.Object({
  actor: text('actor', 320, 'Only the changes of this account: its id, or its email (without regard to ASCII case).'),
  action: text('action', 64, 'Only this action, e.g. `link.update`.'),
  targetType: t.Optional(
    oneOf(AUDIT_TARGET_TYPES, {
      description: 'Only changes to this kind of target.',
      error: fieldError('targetType', `targetType must be one of ${AUDIT_TARGET_TYPES.join(', ')}`),
    }),
  ),
  targetId: text(
    'targetId',
    256,
    "Only changes to this target: a link's, variant's, project's or webhook's id, a domain's host.",
  ),
  from: t.Optional(
    t.String({
      description: 'Epoch ms, or YYYY-MM-DD (start of that UTC day): entries at or after it.',
      error: fieldError('from', 'from must be epoch milliseconds or a date as YYYY-MM-DD (UTC)'),
    }),
  ),
  to: t.Optional(
    t.String({
      description: 'Epoch ms (inclusive), or YYYY-MM-DD (that whole UTC day included).',
      error: fieldError('to', 'to must be epoch milliseconds or a date as YYYY-MM-DD (UTC)'),
    }),
  ),
  ...pageQuery(200, { default: 50 }),
});
export type AuditQueryInput = typeof AuditQuery.static;

export const AuditEntryModel = t.Object(
  {
    id: t.Integer({ description: 'Grows with every entry written.' }),
    at: t.Integer({ description: 'When the change was made (epoch ms).' }),
    actor: t.Object({
      accountId: nullable(t.String(), { description: 'The account that acted; null for the operator’s CLI.' }),
      keyId: nullable(t.String(), { description: 'The API key used; null for a dashboard session and the CLI.' }),
    }),
    via: oneOf(['api', 'dashboard', 'cli', 'mcp'], { description: 'Through what the change came.' }),
    action: t.String({ description: '`<target type>.<verb>`, e.g. link.update, domain.delete, webhook.rotate.' }),
    target: t.Object({ type: t.String(), id: t.String() }),
    fields: t.Array(t.String(), {
      description: 'The names of the fields changed (never their values: no secret, password or hash is ever here).',
    }),
  },
  { description: 'One change: who, through what, what, which fields.' },
);
export type AuditEntryView = typeof AuditEntryModel.static;

export const AuditPageModel = t.Object({ items: t.Array(AuditEntryModel), nextCursor: NextCursor });

/** The dashboard's page: each entry also names its actor's email and a link target's slug. */
export const AppAuditPageModel = t.Object({
  items: t.Array(
    t.Composite([
      AuditEntryModel,
      t.Object({
        email: nullable(t.String(), {
          description: 'The acting account’s email (null: the CLI, or an account since removed).',
        }),
        slug: nullable(t.String(), {
          description: 'A link target’s current slug (null: not a link, or deleted since).',
        }),
      }),
    ]),
  ),
  nextCursor: NextCursor,
});
export type AppAuditItem = (typeof AppAuditPageModel.static)['items'][number];
