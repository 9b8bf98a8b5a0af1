/** GET /workspace. (GET /workspace/stats comes with the analytics module.) */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import type { WorkspaceDeps } from './deps';
import { WorkspaceModel } from './model';
import { describeWorkspace } from './service';

export function workspaceRoutes(deps: WorkspaceDeps) {
  const workspace = describeWorkspace(deps.config);
  return new Elysia({ name: 'slink.workspace' }).use(principalPlugin).get('/workspace', () => workspace, {
    response: { 200: WorkspaceModel, ...errors(401, 429) },
    detail: { tags: ['Identity'], summary: 'Workspace name and hosts' },
  });
}
