/**
 * /app/links/:id: one link — its short link and variant addresses to copy, its numbers, its
 * fields (rules, password and preview among them), status, variants and QR code, a test of its
 * rules, and deleting it.
 */
import { getLink } from '../api/links';
import { listClicks } from '../api/stats';
import type { Link } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { ExternalLink } from '../components/external-link';
import { LoadFailed, Loading } from '../components/feedback';
import { LinkNotFound } from '../components/link-not-found';
import { LiveFeed, LiveMark, LiveMarkHint } from '../components/live-feed';
import { StatusBadge } from '../components/status-badge';
import { formatNumber, formatUtc } from '../lib/format';
import { usePageTitle, useResource } from '../lib/hooks';
import { importedLine } from '../lib/import-sources';
import { newerThan, type ReceivedClick, useLiveClicks } from '../lib/live-clicks';
import { usePowers } from '../lib/powers';
import { DeleteLink } from './link/delete-link';
import { LinkDetailsForm } from './link/details-form';
import { QrCode } from './link/qr-code';
import { RulesTest } from './link/rules-test';
import { StatusActions } from './link/status-actions';
import { Variants } from './link/variants';
import type { PageProps } from './page';

/** Where the link's earlier clicks came from, when an import brought them (one line, or nothing). */
function ImportedNote({ link }: { link: Link }) {
  const { imported } = link;
  if (imported === null) return null;
  return (
    <p class="hint imported-note">
      {importedLine(imported, formatUtc(imported.at, 'day'), formatNumber(imported.clicks))}
    </p>
  );
}

/** `since`: the live clicks its counters do not include yet (newest first). */
function Summary({ link, since, live }: { link: Link; since: ReceivedClick[]; live: boolean }) {
  const lastClickedAt = since[0]?.click.timestamp ?? link.lastClickedAt;
  // [label, value, moves with the live clicks]
  const numbers: [string, string, boolean][] = [
    ['Clicks', formatNumber(link.clickCount + since.length), true],
    ['Unique visitors', formatNumber(link.uniqueCount), false],
    ['Bot hits', formatNumber(link.botCount), false],
    ['Last click', lastClickedAt === null ? 'never' : formatUtc(lastClickedAt), true],
  ];
  return (
    <section class="panel" aria-label="Short link">
      <p class="short-url">
        <code>{link.shortUrl}</code> <CopyButton text={link.shortUrl} what="short link" />
      </p>
      <p class="destination">
        Leads to <ExternalLink url={link.destination} />
      </p>
      <dl class="numbers">
        {numbers.map(([label, value, moves]) => (
          <div key={label}>
            <dt>
              {label}
              {live && moves && <LiveMark />}
            </dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {live && <LiveMarkHint which="Clicks and Last click move" />}
      <p class="hint">Created {formatUtc(link.createdAt)}</p>
      <ImportedNote link={link} />
      <p>
        <a class="button secondary" href={`/app/links/${encodeURIComponent(link.id)}/stats`}>
          Statistics
        </a>
      </p>
    </section>
  );
}

export function LinkPage({ params, query }: PageProps) {
  const id = params.id ?? '';
  const link = useResource(() => getLink(id), [id]);
  const powers = usePowers();
  const live = useLiveClicks({ linkId: id, poll: async () => (await listClicks(id, { range: '24h' }, null)).items });
  usePageTitle(link.data ? (link.data.title ?? link.data.slug) : 'Link');

  if (link.error?.code === 'not_found') return <LinkNotFound />;
  if (!link.data) {
    return link.error ? <LoadFailed error={link.error} retry={link.reload} /> : <Loading active />;
  }
  const current = link.data;
  return (
    <>
      <p class="breadcrumb">
        <a href="/app">Links</a>
      </p>
      <div class="page-head">
        <div class="title-group">
          <h1>{current.title ?? current.slug}</h1>
          <StatusBadge link={current} />
        </div>
      </div>
      {query.get('created') && (
        <p class="alert notice" role="status">
          Link created. Copy the short link and share it.
        </p>
      )}
      {link.error && <LoadFailed error={link.error} retry={link.reload} />}
      <Summary link={current} since={newerThan(live.received, current.lastClickedAt)} live={live.status === 'live'} />
      {/* Side by side the columns are as tall as each other, and the rules test, last on the
          right, stays in view while the person scrolls through the rules on the left. */}
      <div class="columns link-columns">
        <LinkDetailsForm key={current.id} link={current} onSaved={link.set} />
        <div class="stack">
          <LiveFeed live={live} />
          {powers.change && <StatusActions link={current} onChanged={link.set} />}
          <Variants link={current} onChanged={link.reload} />
          <QrCode link={current} />
          {powers.change && <DeleteLink link={current} />}
          {current.rules.length > 0 && <RulesTest link={current} />}
        </div>
      </div>
    </>
  );
}
