/**
 * The shapes the dashboard reads, all from the server's own schemas (type-only imports: nothing
 * of the server is bundled), so a changed answer fails the client's type check, not a page.
 */
import type { Link } from '../../../links/model';
import type { SessionListModel, SignedInBody } from '../../../sessions/model';

export type { Breakdowns, Click, Stats, WorkspaceStats } from '../../../analytics/model';
export type { AppAuditItem } from '../../../audit/model';
export type { AccountItem, KeyItem, OwnedKeyItem, Scope as KeyScope } from '../../../auth/model';
export type { BulkDeleteResult, BulkLine, BulkStatus } from '../../../bulk/model';
export type { Domain, DomainPatch } from '../../../domains/model';
export type { ImportJson as ImportRun } from '../../../imports/model';
export type { ImportedHistory, Link, LinkSort, RedirectStatus } from '../../../links/model';
export type { Preview, Rule, RuleWhen } from '../../../links/rules';
export type { Project } from '../../../projects/model';
export type { RulesTest } from '../../../redirect/rules/model';
export type { Variant } from '../../../variants/model';
export type { DeliveryAttempt, Webhook, WebhookEvent } from '../../../webhooks/model';
export type { Workspace } from '../../../workspace/model';

export type LinkStatus = 'active' | 'paused' | 'archived';
/** What a visitor of the short link gets now (the API judges it): live, paused, expired, limit. */
export type LinkAvailability = Link['availability'];

export type SignedIn = SignedInBody;
export type Account = SignedIn['account'];
export type SessionItem = (typeof SessionListModel.static)['items'][number];

export interface Page<T> {
  items: T[];
  cursor: string | null;
}
