/**
 * Settings › Import's form: the source (each with what it carries), what it needs (an address
 * and a token for a service, a file for the others), where the links go (domain, project), how
 * much history, what to do with a slug already taken, then `Dry run` or `Import`. The token is
 * a password field, emptied the moment it is sent (accepted or refused): nothing keeps it.
 * YOURLS signs in with its signature token or a username and password (`Sign in with`): the
 * pair goes as the token `username:password`, the password emptied the same way.
 * The API's 400 shows under the field it names.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../../api/client';
import type { ImportConflict, ImportHistory, ImportSourceName } from '../../api/imports';
import { startImport } from '../../api/imports';
import type { Domain, Project } from '../../api/types';
import { Field, FileField, SelectField } from '../../components/field';
import { errorFor, FormError } from '../../components/form-error';
import { ProjectSelect } from '../../components/project-select';
import { RadioField } from '../../components/radio-field';
import { withScheme } from '../../lib/destination';
import { domainOptions } from '../../lib/domains';
import { useErrorFocus, useSubmit } from '../../lib/hooks';
import { CONFLICT_CHOICES, HISTORY_CHOICES, loginToken, SOURCES, sourceInfo } from '../../lib/import-sources';

/** The fields the form shows errors under; any other error shows on top. */
const FIELDS = ['source', 'url', 'token', 'username', 'file', 'domain', 'projectId', 'history', 'onConflict'];

type SignIn = 'token' | 'password';

export interface ImportFormProps {
  domains: Domain[];
  projects: Project[];
  /** The import was accepted. */
  onStarted(id: string): void;
}

export function ImportForm({ domains, projects, onStarted }: ImportFormProps) {
  const [source, setSource] = useState<ImportSourceName>('shlink');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [signIn, setSignIn] = useState<SignIn>('token');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [domain, setDomain] = useState('');
  const [projectId, setProjectId] = useState('');
  const [history, setHistory] = useState<ImportHistory>('clicks');
  const [onConflict, setOnConflict] = useState<ImportConflict>('skip');
  const info = sourceInfo(source) ?? SOURCES[0]!;
  const choosesDomain = domains.length > 1;
  const byPassword = info.password !== undefined && signIn === 'password';

  // Which button sent the form; Enter in a field is the first one, the dry run, which writes nothing.
  const dryRun = useRef(true);
  const { busy, error, setError, submit } = useSubmit(async () => {
    const address = info.reads === 'network' && url.trim() !== '' ? withScheme(url).trim() : undefined;
    if (address) setUrl(address);
    if (info.reads === 'file' && !file)
      throw new ApiFailure({
        code: 'invalid_request',
        message: 'Choose the file to import.',
        field: 'file',
        status: 0,
      });
    if (byPassword && username.includes(':'))
      throw new ApiFailure({
        code: 'invalid_request',
        message: 'A username cannot hold a colon.',
        field: 'username',
        status: 0,
      });
    // Sent once, kept nowhere: the field is empty again whatever the answer. An empty pair is
    // sent as no token, which the API refuses under `token` (said under Password).
    const secret = byPassword ? (username !== '' || password !== '' ? loginToken(username, password) : '') : token;
    const sent = info.reads === 'network' && secret !== '' ? secret : undefined;
    setToken('');
    setPassword('');
    const { id } = await startImport(
      {
        source,
        url: address,
        token: sent,
        domain: domain || undefined,
        projectId: projectId || undefined,
        history,
        onConflict,
        dryRun: dryRun.current,
      },
      info.reads === 'file' ? file : null,
    );
    onStarted(id);
  });
  const formRef = useErrorFocus<HTMLFormElement>(error);
  const send = (event: Event) => {
    dryRun.current = (event as SubmitEvent).submitter?.getAttribute('value') !== 'import';
    return submit(event);
  };

  return (
    <form ref={formRef} class="panel import-form" noValidate onSubmit={send} aria-labelledby="import-form-title">
      <h2 id="import-form-title">New import</h2>
      <FormError error={error} fields={FIELDS} />
      <div class="import-columns">
        <RadioField<ImportSourceName>
          legend="Source"
          name="source"
          value={source}
          onValue={(value) => {
            setSource(value);
            setToken('');
            setPassword('');
            setError(null);
          }}
          options={SOURCES.map((s) => ({ value: s.value, label: s.label, hint: s.carries }))}
          error={errorFor(error, 'source')}
        />
        <div class="stack">
          {info.address && (
            <Field
              label={info.address.optional ? `${info.address.label} (optional)` : info.address.label}
              hint={info.address.hint}
              value={url}
              onValue={setUrl}
              onBlur={() => url.trim() !== '' && setUrl(withScheme(url))}
              inputMode="url"
              spellcheck={false}
              autoComplete="off"
              error={errorFor(error, 'url')}
            />
          )}
          {info.password && (
            <RadioField<SignIn>
              legend="Sign in with"
              name="signIn"
              value={signIn}
              onValue={(value) => {
                setSignIn(value);
                setToken('');
                setPassword('');
                setError(null);
              }}
              options={[
                { value: 'token', label: info.token?.label ?? 'Token' },
                { value: 'password', label: 'Username and password', hint: info.password.hint },
              ]}
            />
          )}
          {byPassword && (
            <>
              <Field
                label="Username"
                value={username}
                onValue={setUsername}
                autoComplete="off"
                spellcheck={false}
                error={errorFor(error, 'username')}
              />
              <Field
                label="Password"
                type="password"
                hint="Used only while the import runs, never shown again: type it for each run."
                value={password}
                onValue={setPassword}
                autoComplete="off"
                spellcheck={false}
                error={errorFor(error, 'token')}
              />
            </>
          )}
          {info.token && !byPassword && (
            <Field
              label={info.token.label}
              type="password"
              hint={`${info.token.hint} Used only while the import runs, never shown again: type it for each run.`}
              value={token}
              onValue={setToken}
              autoComplete="off"
              spellcheck={false}
              error={errorFor(error, 'token')}
            />
          )}
          {info.file && (
            <FileField
              // A new source asks for its own file.
              key={source}
              label="File"
              accept={info.file.accept}
              hint={info.file.hint}
              onFile={setFile}
              error={errorFor(error, 'file')}
            />
          )}
          {choosesDomain && (
            <SelectField
              label="Domain"
              hint="Where the links are made. As in the source: on the domain with the host a link had there, else on the default one."
              value={domain}
              onValue={setDomain}
              blank="As in the source"
              options={domainOptions(domains)}
              error={errorFor(error, 'domain')}
            />
          )}
          <ProjectSelect
            projects={projects}
            value={projectId}
            onValue={setProjectId}
            error={errorFor(error, 'projectId')}
          />
          <RadioField<ImportHistory>
            legend="Click history"
            name="history"
            value={history}
            onValue={setHistory}
            options={HISTORY_CHOICES}
            error={errorFor(error, 'history')}
          />
          <RadioField<ImportConflict>
            legend="When a slug is already taken"
            name="onConflict"
            value={onConflict}
            onValue={setOnConflict}
            options={CONFLICT_CHOICES}
            error={errorFor(error, 'onConflict')}
          />
        </div>
      </div>
      <div class="actions">
        <button type="submit" class="button secondary" value="dry" disabled={busy}>
          Dry run
        </button>
        <button type="submit" class="button primary" value="import" disabled={busy}>
          Import
        </button>
      </div>
      <p class="hint">A dry run reads the source and says what an import would do, without writing anything.</p>
    </form>
  );
}
