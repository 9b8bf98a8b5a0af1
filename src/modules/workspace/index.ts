/** GET /workspace and GET /privacy. (GET /workspace/stats comes with the analytics module.) */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import type { WorkspaceDeps } from './deps';
import { WorkspaceModel } from './model';
import { describePrivacy, PrivacyModel } from './privacy';
import { describeWorkspace } from './service';

export function workspaceRoutes(deps: WorkspaceDeps) {
  const workspace = describeWorkspace(deps.config);
  const privacy = describePrivacy(deps.config);
  return new Elysia({ name: 'slink.workspace' })
    .use(principalPlugin)
    .get('/workspace', () => workspace, {
      response: { 200: WorkspaceModel, ...errors(401, 429) },
      detail: { tags: ['Identity'], summary: 'Workspace name and hosts' },
    })
    .get('/privacy', () => privacy, {
      response: { 200: PrivacyModel, ...errors(401, 429) },
      detail: {
        tags: ['Identity'],
        summary: 'The privacy switches in force and what a click keeps',
        description:
          'The switches (SLINK_HONOR_GPC, SLINK_HONOR_DNT, SLINK_NO_TRACK_PARAM, SLINK_REFERRER, SLINK_GEO), what a click keeps field by field (and an opted-out one), and for how long: raw clicks SLINK_RETENTION_DAYS, statistics forever.',
      },
    });
}
