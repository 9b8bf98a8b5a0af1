/**
 * /app/invite/<secret>: the address an admin's invite gives. No session needed: it shows whose
 * invite it is and its role, and the person chooses a password; the account is made and signed
 * in. Opening the page changes nothing (a link previewer may open it first). A used, revoked or
 * expired invite, or an address that names none, says so and what to do.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client';
import { toApiError } from '../api/client';
import { acceptInvite, getInviteStatus, type InviteStatus } from '../api/invites';
import { LoadFailed, Loading } from '../components/feedback';
import { Field } from '../components/field';
import { errorFor, FormError } from '../components/form-error';
import { formatUtc } from '../lib/format';
import { usePageTitle, useResource, useSubmit } from '../lib/hooks';
import { navigate } from '../router';
import { useSession } from '../session';
import type { PageProps } from './page';

const ROLES: Record<InviteStatus['role'], { name: string; may: string }> = {
  admin: { name: 'Admin', may: 'everything, accounts and settings included' },
  editor: { name: 'Editor', may: 'creates and changes links, projects and tags' },
  viewer: { name: 'Viewer', may: 'reads links and statistics' },
};

const ENDED: Record<Exclude<InviteStatus['status'], 'pending'>, { title: string; text: string }> = {
  used: {
    title: 'This invite was used already',
    text: 'An account was made with it. If it is yours, sign in with its email; otherwise ask an admin for a new invite.',
  },
  revoked: { title: 'This invite was revoked', text: 'An admin withdrew it. Ask an admin for a new invite.' },
  expired: { title: 'This invite expired', text: 'Invites work for 7 days. Ask an admin for a new invite.' },
};

function Ended({ status }: { status: keyof typeof ENDED }) {
  const { title, text } = ENDED[status];
  return (
    <>
      <h1>{title}</h1>
      <p>{text}</p>
      <p>
        <a class="button secondary" href="/app/sign-in">
          Go to sign-in
        </a>
      </p>
    </>
  );
}

function Unknown() {
  return (
    <>
      <h1>This invite address is not known</h1>
      <p>Check that the whole address was copied, or ask an admin for a new invite.</p>
    </>
  );
}

function AcceptForm({ token, invite, onEnded }: { token: string; invite: InviteStatus; onEnded(): void }) {
  const session = useSession();
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    try {
      session.signedIn(await acceptInvite(token, password));
      navigate('/app', { replace: true });
    } catch (err) {
      // Used, revoked or expired meanwhile (another tab): show the page that says which.
      if (toApiError(err).field === 'token') onEnded();
      else throw err;
    }
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['password']} />
      {/* The email is the invite's: shown, sent by nobody, and there for password managers. */}
      <Field label="Email" type="email" value={invite.email} onValue={() => {}} readOnly autoComplete="username" />
      <Field
        label="Choose a password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 8 characters."
        value={password}
        onValue={setPassword}
        error={errorFor(error, 'password')}
      />
      <button type="submit" class="button primary wide" disabled={busy} aria-busy={busy}>
        Create my account
      </button>
    </form>
  );
}

function failed(error: ApiError | null) {
  return error !== null && error.code === 'not_found';
}

export function InvitePage({ params }: PageProps) {
  usePageTitle('Accept your invite');
  const token = params.token ?? '';
  const invite = useResource(() => getInviteStatus(token), [token]);
  if (invite.loading && !invite.data) return <Loading active />;
  if (failed(invite.error)) return <Unknown />;
  if (invite.error) return <LoadFailed error={invite.error} retry={invite.reload} />;
  const found = invite.data;
  if (!found) return <Loading active />;
  if (found.status !== 'pending') return <Ended status={found.status} />;
  return (
    <>
      <h1>You are invited to Slink</h1>
      <p>
        Choose a password to create the account of <strong>{found.email}</strong>, and you are signed in right after.
      </p>
      <p>
        Its role: <strong>{ROLES[found.role].name}</strong> ({ROLES[found.role].may}).
      </p>
      <p class="hint">This invite works once, until {formatUtc(found.expiresAt)}.</p>
      <AcceptForm token={token} invite={found} onEnded={invite.reload} />
    </>
  );
}
