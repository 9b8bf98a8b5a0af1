/**
 * /api/v1/invites (admins: invite, list the pending ones, revoke) and the two dashboard doors of
 * an invite address (/api/app/invite: look it up, accept it), reachable without a session.
 */
import { Elysia } from 'elysia';
import { findSignedIn } from '../../http/app-guard';
import { principalPlugin } from '../../http/auth';
import { clientAddress } from '../../http/client';
import { appDetail, errors, IdParams, noContentResponses } from '../../http/models';
import { sessionCookie } from '../../http/session';
import { SignedInModel, signedInBody } from '../sessions/public';
import { acceptInvite } from './accept';
import type { InvitesDeps } from './deps';
import {
  AcceptInviteBody,
  CreatedInviteModel,
  CreateInviteBody,
  InviteListModel,
  InviteStatusModel,
  InviteTokenBody,
} from './model';
import { createInvite, INVITE_DAYS, inviteStatus, listInvites, revokeInvite } from './service';

const tags = ['Invites'];
const ADMINS = 'Admins only (else 403 superuser_required).';

export function invitesRoutes(deps: InvitesDeps) {
  return new Elysia({ name: 'slink.invites', prefix: '/invites' })
    .use(principalPlugin)
    .post(
      '',
      async ({ body, set, access }) => {
        const created = await createInvite(deps, access, body);
        set.status = 201;
        return created;
      },
      {
        parse: 'json',
        body: CreateInviteBody,
        response: { 201: CreatedInviteModel, ...errors(400, 401, 403, 409, 413, 415, 429) },
        detail: {
          tags,
          summary: 'Invite someone',
          description: `${ADMINS} Answers a one-time address (\`url\`, on the dashboard) valid ${INVITE_DAYS} days, where the invited person chooses a password and gets an account of this role and projects. The address's secret is shown this once and never stored. 409 conflict (field email) when an account or a pending invite has the email; 400 (field projects) for an unknown project, or any project on an admin invite.`,
        },
      },
    )
    .get('', async ({ access }) => ({ items: await listInvites(deps, access) }), {
      response: { 200: InviteListModel, ...errors(401, 403, 429) },
      detail: {
        tags,
        summary: 'List pending invites',
        description: `${ADMINS} Not used, not revoked, not expired; newest first; never the secret.`,
      },
    })
    .delete(
      '/:id',
      async ({ params, set, access }) => {
        await revokeInvite(deps, access, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        detail: {
          tags,
          summary: 'Revoke an invite',
          description: `${ADMINS} Its address stops working. An invite that is not pending (used, revoked, expired, unknown) is 404.`,
          responses: noContentResponses('Revoked', 401, 403, 404, 429),
        },
      },
    );
}

export function appInviteRoutes(deps: InvitesDeps) {
  const { appHost, trustProxy } = deps.config;
  return new Elysia({ name: 'slink.app.invite', prefix: '/invite' })
    .post(
      '/status',
      ({ body, request, server }) => inviteStatus(deps, body.token, clientAddress(request, server, trustProxy)),
      {
        parse: 'json',
        body: InviteTokenBody,
        response: { 200: InviteStatusModel, ...errors(400, 403, 404, 413, 415) },
        detail: appDetail(
          "An invite address's invite",
          'Its email, role, expiry and status (pending, used, revoked, expired), for the invite page. Changes nothing. 404 not_found for a secret that names no invite.',
          { door: true },
        ),
      },
    )
    .post(
      '',
      async ({ body, request, server, set }) => {
        const created = await acceptInvite(deps, {
          ...body,
          userAgent: request.headers.get('user-agent'),
          address: clientAddress(request, server, trustProxy),
          previousSessionId: findSignedIn(request)?.session.id ?? null,
        });
        set.status = 201;
        set.headers['set-cookie'] = sessionCookie(appHost, created.token, created.session.expiresAt, deps.clock.now());
        return signedInBody(created);
      },
      {
        parse: 'json',
        body: AcceptInviteBody,
        response: { 201: SignedInModel, ...errors(400, 403, 404, 409, 413, 415, 429) },
        detail: appDetail(
          'Accept an invite',
          "Creates the invite's account with this password and signs it in (Set-Cookie). 409 conflict (field token) when the invite was used, revoked or expired meanwhile; (field email) when its email has an account. A secret that names no invite is 404 and counts as a failed sign-in of the client address (429 with Retry-After past the limit).",
          { door: true },
        ),
      },
    );
}
