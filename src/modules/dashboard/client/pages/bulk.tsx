/**
 * /app/bulk: many links from pasted text. Preview asks the server how it reads every line (the
 * same rules create applies), so nothing is guessed here, except that a URL written without a
 * scheme (acme.example/pricing) is taken as https:// and rewritten so in the text before it is
 * sent; Create is offered for exactly the text and options previewed, and shows what was made
 * and what was skipped.
 */
import { useState } from 'preact/hooks';
import { type BulkCreated, type BulkPreview, type BulkText, createBulk, previewBulk } from '../api/bulk';
import { listProjects } from '../api/projects';
import { CheckboxField, SelectField, TextAreaField } from '../components/field';
import { FilingFields, useFiling } from '../components/filing-fields';
import { errorFor, FormError } from '../components/form-error';
import { ParamsEditor } from '../components/params-editor';
import { withSchemes } from '../lib/destination';
import { defaultHost, domainOptions, useDomains } from '../lib/domains';
import { useFocusOn, usePageTitle, useResource, useSubmit } from '../lib/hooks';
import { type ParamRow, paramsFromRows } from '../lib/params';
import { BulkLines, countsText } from './bulk/bulk-lines';
import { BulkResult } from './bulk/bulk-result';

const FIELDS = ['text', 'domain', 'tags', 'projectId', 'params', 'skipDuplicates'];

export function BulkPage() {
  usePageTitle('Bulk create');
  const projects = useResource(listProjects, []);
  const [text, setText] = useState('');
  const filing = useFiling();
  const domains = useDomains();
  const [picked, setDomain] = useState('');
  const domain = picked || defaultHost(domains.list);
  const choosesDomain = domains.list.length > 1;
  const [rows, setRows] = useState<ParamRow[]>([]);
  const [skipDuplicates, setSkipDuplicates] = useState(true);
  const [preview, setPreview] = useState<{ sent: string; answer: BulkPreview } | null>(null);
  const [result, setResult] = useState<BulkCreated | null>(null);

  const bodyOf = (text: string): BulkText => ({
    text,
    ...(choosesDomain && domain ? { domain } : {}),
    ...filing.sent,
    params: paramsFromRows(rows),
    skipDuplicates,
  });
  const body = bodyOf(text);
  const sent = JSON.stringify(body);
  const current = preview !== null && preview.sent === sent;
  const previewing = useSubmit(async () => {
    creating.setError(null);
    const completed = withSchemes(text);
    setText(completed);
    const asked = bodyOf(completed);
    setPreview({ sent: JSON.stringify(asked), answer: await previewBulk(asked) });
  });
  const creating = useSubmit(async () => setResult(await createBulk(body)));
  const previewHead = useFocusOn<HTMLHeadingElement>(preview?.answer);
  const error = creating.error ?? previewing.error;

  const again = () => {
    setText('');
    setPreview(null);
    setResult(null);
  };

  if (result) {
    return (
      <>
        <h1>Bulk create</h1>
        <BulkResult result={result} onAgain={again} />
      </>
    );
  }

  const toCreate = preview?.answer.counts.create ?? 0;
  return (
    <>
      <h1>Bulk create</h1>
      <p>Paste up to 200 URLs and make a short link for each. Preview first: nothing is created until you confirm.</p>
      {/* noValidate: the API judges the text, and its message shows under the field, never a browser bubble. */}
      <form class="stack bulk-form" noValidate onSubmit={previewing.submit}>
        <FormError error={error} fields={FIELDS} />
        <TextAreaField
          label="URLs"
          required
          rows={10}
          placeholder={'https://example.com/spring-sale\tSpring sale\nhttps://example.com/?utm_source=newsletter'}
          hint="One per line. A tab after a URL (as pasted from a spreadsheet) makes the rest of the line the link's title; a URL's utm_ parameters become that link's tracking parameters."
          value={text}
          onValue={setText}
          error={errorFor(error, 'text')}
        />
        {choosesDomain && (
          <SelectField
            label="Domain"
            hint="Every link goes on this domain: what their short links start with."
            value={domain}
            onValue={setDomain}
            options={domainOptions(domains.list)}
            error={errorFor(error, 'domain')}
          />
        )}
        <div class="row">
          <FilingFields
            state={filing}
            projects={projects.data?.projects ?? []}
            error={error}
            tagsHint="For every link; separated by commas."
          />
        </div>
        <ParamsEditor
          legend="Tracking parameters for every link"
          rows={rows}
          onRows={setRows}
          error={errorFor(error, 'params')}
        />
        <CheckboxField
          label="Skip duplicates"
          hint="Skip a URL that already has a link (of any status) or appears on an earlier line."
          checked={skipDuplicates}
          onChecked={setSkipDuplicates}
        />
        <div class="actions start">
          <button
            type="submit"
            class={`button ${current ? 'secondary' : 'primary'}`}
            disabled={previewing.busy}
            aria-busy={previewing.busy}
          >
            Preview
          </button>
        </div>
      </form>
      {preview && (
        <section class="stack bulk-preview" aria-labelledby="bulk-preview-title">
          <h2 id="bulk-preview-title" ref={previewHead} tabIndex={-1}>
            Preview
          </h2>
          <p role="status">{countsText(preview.answer.counts)}</p>
          {!current && <p class="alert warn">Changed since this preview: preview again before creating.</p>}
          <BulkLines lines={preview.answer.lines} label="Lines" />
          {current && toCreate === 0 && <p class="hint">Nothing to create: every line is skipped.</p>}
          {current && toCreate > 0 && (
            <div class="actions start">
              <button
                type="button"
                class="button primary"
                disabled={creating.busy}
                aria-busy={creating.busy}
                onClick={creating.submit}
              >
                {toCreate === 1 ? 'Create 1 link' : `Create ${toCreate} links`}
              </button>
            </div>
          )}
        </section>
      )}
    </>
  );
}
