/**
 * /app/settings/sessions: where this account is signed in (the browser and system, as the
 * server reads them from the user agent); end one, or all of them.
 */
import { useState } from 'preact/hooks';
import { endAllSessions, endSession, listSessions } from '../../api/app';
import type { SessionItem } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ResourceStatus, StatusLine } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { navigate } from '../../router';
import { useSession } from '../../session';

/** "Chrome on Windows", from the names the server read (never the raw user agent). */
function browserName({ browser, os }: SessionItem): string {
  if (browser && os) return `${browser} on ${os}`;
  if (browser) return browser;
  return os ? `A browser on ${os}` : 'Unknown browser';
}

export function SessionsPage() {
  const sessions = useResource(listSessions, []);
  const session = useSession();
  const action = useAction();
  const [confirmAll, setConfirmAll] = useState(false);
  const [done, setDone] = useState('');
  const items = sessions.data?.items ?? [];

  const end = async (item: SessionItem) => {
    setDone('');
    if (!(await action.run(() => endSession(item.id)))) return;
    setDone(`Ended the session of ${browserName(item)}.`);
    sessions.reload();
  };
  const endAll = async () => {
    if (!(await action.run(endAllSessions))) return setConfirmAll(false);
    session.signedOut();
    navigate('/app/sign-in?notice=signed-out-everywhere', { replace: true });
  };

  return (
    <SettingsFrame title="Sessions">
      <p>Every browser signed in to this account. A session ends after 7 idle days, or at its expiry date.</p>
      <StatusLine text={done} />
      <ResourceStatus resource={sessions} action={action} />
      {items.length > 0 && (
        <ul class="session-list">
          {items.map((item) => (
            <li key={item.id} class="session-item">
              <div>
                <p>
                  <strong>{browserName(item)}</strong>
                  {item.current && <span class="badge">This browser</span>}
                </p>
                <p class="hint">
                  Signed in {formatUtc(item.createdAt)} · last seen {formatUtc(item.lastSeenAt)} · ends{' '}
                  {formatUtc(item.expiresAt)}
                </p>
              </div>
              {!item.current && (
                <button
                  type="button"
                  class="button small secondary"
                  aria-label={`End the session of ${browserName(item)}, signed in ${formatUtc(item.createdAt)}`}
                  onClick={() => end(item)}
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
