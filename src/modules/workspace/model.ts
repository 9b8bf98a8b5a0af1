import { t } from 'elysia';

export const WorkspaceModel = t.Object({
  name: t.String({ description: 'SLINK_WORKSPACE_NAME' }),
  hostname: t.String({ description: 'Host name of the short links, e.g. sl.ink' }),
  shortHost: t.String({ description: 'Origin of short links (SLINK_SHORT_HOST)' }),
  appHost: t.String({ description: 'Origin of the dashboard and the API (SLINK_APP_HOST)' }),
});
export type Workspace = typeof WorkspaceModel.static;
