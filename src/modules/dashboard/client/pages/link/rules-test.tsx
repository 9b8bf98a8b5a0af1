/**
 * Tries the link's saved rules on a made-up visit (its user agent, address, languages,
 * referrer, query and time) and says what the visitor would get: the rule that sends it where,
 * or the pause, expiry, click limit, fallback, password or preview that comes first. The server
 * answers with the redirect's own checks, and records nothing.
 */
import { useState } from 'preact/hooks';
import { type RuleTestResult, type RuleVisit, testRules } from '../../api/links';
import type { Link } from '../../api/types';
import { Field } from '../../components/field';
import { errorFor, FormError } from '../../components/form-error';
import { fromUtcInput } from '../../lib/format';
import { useSubmit } from '../../lib/hooks';
import { queryObject } from '../../lib/rule-drafts';
import { ruleTestVerdict } from '../../lib/rule-labels';

const FIELDS = ['userAgent', 'ip', 'language', 'referrer', 'query', 'at'];

export function RulesTest({ link }: { link: Link }) {
  const [userAgent, setUserAgent] = useState('');
  const [ip, setIp] = useState('');
  const [language, setLanguage] = useState('');
  const [referrer, setReferrer] = useState('');
  const [query, setQuery] = useState('');
  const [at, setAt] = useState('');
  const [result, setResult] = useState<RuleTestResult | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setResult(null);
    const visit: RuleVisit = {};
    if (userAgent.trim()) visit.userAgent = userAgent.trim();
    if (ip.trim()) visit.ip = ip.trim();
    if (language.trim()) visit.language = language.trim();
    if (referrer.trim()) visit.referrer = referrer.trim();
    if (query.trim()) visit.query = queryObject(query);
    const when = fromUtcInput(at);
    if (when !== null) visit.at = when;
    setResult(await testRules(link.id, visit));
  });

  const verdict = result && ruleTestVerdict(result);

  return (
    <section class="panel rules-test" aria-labelledby="rules-test-title">
      <h2 id="rules-test-title">Test the rules</h2>
      <p class="hint">
        What a visit like this one gets: the saved rule it matches and where it goes, or what comes before the rules (a
        pause, the expiry, the click limit, a password). Nothing is recorded.
      </p>
      <form class="stack" noValidate onSubmit={submit}>
        <FormError error={error} fields={FIELDS} />
        <Field
          label="User agent"
          spellcheck={false}
          placeholder="Mozilla/5.0 (iPhone; …)"
          value={userAgent}
          onValue={setUserAgent}
          error={errorFor(error, 'userAgent')}
        />
        <div class="row">
          <Field
            label="IP address"
            spellcheck={false}
            placeholder="203.0.113.7"
            hint="For the country."
            value={ip}
            onValue={setIp}
            error={errorFor(error, 'ip')}
          />
          <Field
            label="Accept-Language"
            spellcheck={false}
            placeholder="fr-FR,fr;q=0.9"
            value={language}
            onValue={setLanguage}
            error={errorFor(error, 'language')}
          />
        </div>
        <div class="row">
          <Field
            label="Referrer"
            inputMode="url"
            spellcheck={false}
            placeholder="https://news.example.com/item"
            value={referrer}
            onValue={setReferrer}
            error={errorFor(error, 'referrer')}
          />
          <Field
            label="Query"
            spellcheck={false}
            placeholder="ref=partner&lang=fr"
            value={query}
            onValue={setQuery}
            error={errorFor(error, 'query')}
          />
        </div>
        <Field
          label="Time (UTC)"
          type="datetime-local"
          hint="Empty: now."
          value={at}
          onValue={setAt}
          error={errorFor(error, 'at')}
        />
        <div class="actions">
          <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
            Test
          </button>
        </div>
      </form>
      <div role="status" class="rules-result">
        {verdict && (
          <>
            <p>
              <strong>{verdict.says}</strong>
            </p>
            {verdict.location !== null && (
              <>
                <p class="hint">Location</p>
                <p>
                  <code>{verdict.location}</code>
                </p>
              </>
            )}
          </>
        )}
      </div>
    </section>
  );
}
