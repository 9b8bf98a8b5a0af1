/** /app/settings/workspace: the workspace as the server reports it (set by SLINK_* variables). */
import { getWorkspace } from '../../api/app';
import { ResourceStatus } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { useResource } from '../../lib/hooks';

export function WorkspacePage() {
  const workspace = useResource(getWorkspace, []);
  const data = workspace.data;
  return (
    <SettingsFrame title="Workspace">
      <ResourceStatus resource={workspace} />
      {data && (
        <>
          <dl class="facts">
            <div>
              <dt>Name</dt>
              <dd>{data.name}</dd>
            </div>
            <div>
              <dt>Short links</dt>
              <dd>
                <code>{data.shortHost}</code>
              </dd>
            </div>
            <div>
              <dt>Short link host name</dt>
              <dd>
                <code>{data.hostname}</code>
              </dd>
            </div>
            <div>
              <dt>Dashboard and API</dt>
              <dd>
                <code>{data.appHost}</code>
              </dd>
            </div>
          </dl>
          <p class="hint">These are set where Slink runs: SLINK_WORKSPACE_NAME, SLINK_SHORT_HOST and SLINK_APP_HOST.</p>
        </>
      )}
    </SettingsFrame>
  );
}
