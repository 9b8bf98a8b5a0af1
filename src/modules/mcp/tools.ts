/**
 * The MCP tools: each one call into the service verb its API route calls, with the same matrix
 * action, input schema (the route's params and body or query, as one object) and response
 * schema. A tool is only ever added: a change to a tool's input is a new tool name.
 */
import type { TObject, TProperties, TSchema } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Access, Action } from '../access/public';
import {
  type AnalyticsDeps,
  ClickPageModel,
  ClicksQuery,
  linkClicks,
  linkStats,
  StatsModel,
  StatsQuery,
  WorkspaceStatsModel,
  WorkspaceStatsQuery,
  workspaceStats,
} from '../analytics/public';
import { DomainListModel, listDomains } from '../domains/public';
import {
  CreateLinkBody,
  createLink,
  getLinkOrThrow,
  LinkListModel,
  LinkModel,
  ListLinksQuery,
  listLinks,
  UpdateLinkBody,
  updateLink,
} from '../links/public';

/** What the tools call: every module's deps, which the composition root's Deps is. */
export type McpDeps = AnalyticsDeps & Parameters<typeof listDomains>[0];

export interface Tool {
  name: string;
  description: string;
  /** The matrix action its API route is authorised by (http/route-actions.ts). */
  action: Action;
  input: TObject;
  /** The route's response schema: the result is cleaned by it, as the API's is. */
  output: TSchema;
  // biome-ignore lint/suspicious/noExplicitAny: the input was validated against `input` before the call
  run(deps: McpDeps, access: Access, input: any): Promise<unknown>;
}

const LinkId = t.String({ description: 'The link id (lnk_…), as GET /links returns it.' });

/** A route's path id and its body or query fields, as one object. */
function withId(properties: TProperties): TObject {
  return t.Object({ id: LinkId, ...properties });
}

/** In the order tools/list gives them: writes first. */
export const TOOLS: readonly Tool[] = [
  {
    name: 'create_link',
    description: 'Create a short link (POST /api/v1/links). Returns the Link.',
    action: 'link.create',
    input: CreateLinkBody,
    output: LinkModel,
    run: (deps, access, input) => createLink(deps, access, input),
  },
  {
    name: 'update_link',
    description: 'Change a link: only the fields given change (PATCH /api/v1/links/{id}). Returns the Link.',
    action: 'link.update',
    input: withId(UpdateLinkBody.properties),
    output: LinkModel,
    run: (deps, access, { id, ...body }) => updateLink(deps, access, id, body),
  },
  {
    name: 'get_link',
    description: 'One link by id (GET /api/v1/links/{id}).',
    action: 'link.read',
    input: withId({}),
    output: LinkModel,
    run: (deps, access, { id }) => getLinkOrThrow(deps, access, id),
  },
  {
    name: 'list_links',
    description: 'Links, newest first by default, a page at a time (GET /api/v1/links).',
    action: 'link.read',
    input: ListLinksQuery,
    output: LinkListModel,
    run: (deps, access, input) => listLinks(deps, access, input),
  },
  {
    name: 'link_stats',
    description: 'Statistics of a link over a window (GET /api/v1/links/{id}/stats).',
    action: 'link.read',
    input: withId(StatsQuery.properties),
    output: StatsModel,
    run: (deps, access, { id, ...query }) => linkStats(deps, access, id, query),
  },
  {
    name: 'workspace_stats',
    description: 'Statistics of every link the key sees, with the top links (GET /api/v1/workspace/stats).',
    action: 'workspace.read',
    input: WorkspaceStatsQuery,
    output: WorkspaceStatsModel,
    run: (deps, access, input) => workspaceStats(deps, access, input),
  },
  {
    name: 'list_clicks',
    description: 'Raw clicks of a link, newest first, a page at a time (GET /api/v1/links/{id}/clicks).',
    action: 'link.read',
    input: withId(ClicksQuery.properties),
    output: ClickPageModel,
    run: (deps, access, { id, ...query }) => linkClicks(deps, access, id, query),
  },
  {
    name: 'list_domains',
    description: 'The short domains the key sees, with their link counts (GET /api/v1/domains).',
    action: 'domain.read',
    input: t.Object({}),
    output: DomainListModel,
    run: (deps, access) => listDomains(deps, access),
  },
];
