/** GET /workspace. (GET /workspace/stats comes with the analytics module.) */
import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import { WorkspaceModel } from './model';
import { describeWorkspace } from './service';

export function workspaceRoutes(deps: Deps) {
  const workspace = describeWorkspace(deps.config);
  return new Elysia({ name: 'slink.workspace' }).use(principalPlugin).get('/workspace', () => workspace, {
    response: { 200: WorkspaceModel, ...errors(401, 429) },
    detail: { tags: ['Identity'], summary: 'Workspace name and hosts' },
  });
}
