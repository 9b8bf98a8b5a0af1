/** /app/settings/sessions: where this account is signed in; end one, or all of them. */
import { useState } from 'preact/hooks';
import { endAllSessions, endSession, listSessions } from '../../api/app';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ResourceStatus } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatDateTime } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { navigate } from '../../router';
import { useSession } from '../../session';

export function SessionsPage() {
  const sessions = useResource(listSessions, []);
  const session = useSession();
  const action = useAction();
  const [confirmAll, setConfirmAll] = useState(false);
  const items = sessions.data?.items ?? [];

  const end = async (id: string) => {
    if (await action.run(() => endSession(id))) sessions.reload();
  };
  const endAll = async () => {
    if (!(await action.run(endAllSessions))) return setConfirmAll(false);
    session.signedOut();
    navigate('/app/sign-in?notice=signed-out-everywhere', { replace: true });
  };

  return (
    <SettingsFrame title="Sessions">
      <p>Every browser signed in to this account. A session ends after 7 idle days, or at its expiry date.</p>
      <ResourceStatus resource={sessions} action={action} />
      {items.length > 0 && (
        <ul class="session-list">
          {items.map((item) => (
            <li key={item.id} class="session-item">
              <div>
                <p>
                  <strong>{item.userAgent ?? 'Unknown browser'}</strong>
                  {item.current && <span class="badge">This browser</span>}
                </p>
                <p class="hint">
                  Signed in {formatDateTime(item.createdAt)} · last seen {formatDateTime(item.lastSeenAt)} · ends{' '}
                  {formatDateTime(item.expiresAt)}
                </p>
              </div>
              {!item.current && (
                <button
                  type="button"
                  class="button small secondary"
                  aria-label={`End the session of ${item.userAgent ?? 'an unknown browser'}`}
                  onClick={() => end(item.id)}
                >
                  End
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <p>
        <button type="button" class="button danger" onClick={() => setConfirmAll(true)}>
          Sign out everywhere
        </button>
      </p>
      <ConfirmDialog
        open={confirmAll}
        title="Sign out everywhere?"
        confirm="Sign out everywhere"
        onConfirm={endAll}
        onCancel={() => setConfirmAll(false)}
      >
        <p>Every session of this account ends, this one too: you will sign in again. API keys keep working.</p>
      </ConfirmDialog>
    </SettingsFrame>
  );
}
