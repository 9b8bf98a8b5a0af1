/**
 * /app: the links, searched and filtered on the server and read a page (50) at a time with the
 * API's cursors, so the list stays fast however many links there are; how many match in all is
 * asked of the server too (GET /links/count), never counted from the pages read. Links can be
 * selected for bulk actions; after one, the list, the count and the tags are read again and the
 * selection holds only what the action left to deal with.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/client';
import { countLinks, type LinkFilters, listLinks, listTags } from '../api/links';
import { listProjects } from '../api/projects';
import type { Link, LinkAvailability, LinkSort, LinkStatus } from '../api/types';
import { EmptyState, LoadFailed, Loading } from '../components/feedback';
import { LinkFiltersBar } from '../components/link-filters';
import { LinkList } from '../components/link-list';
import { useDomains } from '../lib/domains';
import { formatNumber } from '../lib/format';
import { usePageTitle, useResource } from '../lib/hooks';
import { takeNextPageNote } from '../lib/next-page-note';
import { linkPagePath } from '../lib/paths';
import { usePowers } from '../lib/powers';
import { navigate } from '../router';
import { NewLinkDialog } from './links/new-link-dialog';
import { type Outcome, OutcomeNote } from './links/outcome';
import { useSelection } from './links/selection';
import { SelectionBar } from './links/selection-bar';
import type { PageProps } from './page';

function filtersOf(query: URLSearchParams): LinkFilters {
  const get = (key: string) => query.get(key) || undefined;
  return {
    q: get('q'),
    tag: get('tag'),
    project: get('project'),
    status: get('status') as LinkStatus | undefined,
    availability: get('availability') as LinkAvailability | undefined,
    domain: get('domain'),
    sort: get('sort') as LinkSort | undefined,
  };
}

const countText = (n: number) => (n === 1 ? '1 link' : `${formatNumber(n)} links`);

export function LinksPage({ query }: PageProps) {
  usePageTitle('Links');
  const filters = filtersOf(query);
  const key = JSON.stringify(filters);
  const [items, setItems] = useState<Link[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const [creating, setCreating] = useState(false);
  const generation = useRef(0);
  const tags = useResource(listTags, []);
  const count = useResource(() => countLinks(JSON.parse(key) as LinkFilters), [key]);
  const projects = useResource(listProjects, []);
  const domains = useDomains();
  const selection = useSelection();
  const powers = usePowers();
  // What was just done elsewhere and led here (a deleted link), said until the filters change.
  const [outcome, setOutcome] = useState<Outcome | null>(() => {
    const note = takeNextPageNote();
    return note ? { text: note } : null;
  });
  const shownKey = useRef(key);

  const load = useCallback(
    async (from: string | null) => {
      const mine = from === null ? ++generation.current : generation.current;
      setLoading(true);
      setError(null);
      try {
        const page = await listLinks(JSON.parse(key) as LinkFilters, from);
        if (mine !== generation.current) return;
        setItems((before) => (from === null ? page.items : [...before, ...page.items]));
        setCursor(page.cursor);
      } catch (err) {
        if (mine === generation.current) setError(toApiError(err));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [key],
  );
  useEffect(() => {
    load(null);
    // Another search or filter: what was selected, and what was done to it, belong to the last one.
    selection.clear();
    if (shownKey.current !== key) setOutcome(null);
    shownKey.current = key;
  }, [load, key, selection.clear]);
  const bulkDone = (result: Outcome, keep: string[]) => {
    setOutcome(result);
    selection.replace(keep);
    load(null);
    count.reload();
    tags.reload();
  };

  const onFilters = useCallback((next: LinkFilters) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v) search.set(k, v);
    navigate(search.size ? `/app?${search}` : '/app', { replace: true });
  }, []);
  const filtered = Object.values(filters).some((v) => v !== undefined && v !== 'created');

  return (
    <>
      <div class="page-head">
        <div class="title-group">
          <h1>Links</h1>
          {/* Only a count of the filters shown: while another is asked for, none. */}
          <p class="hint" role="status">
            {count.data && !count.loading && !count.error ? countText(count.data.count) : ''}
          </p>
        </div>
        {powers.change && (
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            New link
          </button>
        )}
      </div>
      {!powers.change && <p class="hint view-only-note">You can view links; ask an admin to change them.</p>}
      <LinkFiltersBar
        filters={filters}
        tags={tags.data?.tags ?? []}
        projects={projects.data?.projects ?? []}
        domains={domains.list}
        onChange={onFilters}
      />
      <OutcomeNote outcome={outcome} />
      {items.length > 0 && (
        <>
          {powers.change && (
            <SelectionBar
              links={items}
              selection={selection}
              projects={projects.data?.projects ?? []}
              onDone={bulkDone}
            />
          )}
          <LinkList links={items} selected={selection.has} onToggle={selection.toggle} selectable={powers.change} />
        </>
      )}
      {error && <LoadFailed error={error} retry={() => load(items.length ? cursor : null)} />}
      {!loading && !error && items.length === 0 && !filtered && (
        <EmptyState title="No links yet">
          {powers.change ? (
            <p>
              Create your first short link with New link: paste the address it should lead to. To make many at once,
              paste their addresses in <a href="/app/bulk">Bulk create</a>.
            </p>
          ) : (
            <p>The links made in this workspace appear here.</p>
          )}
        </EmptyState>
      )}
      {!loading && !error && items.length === 0 && filtered && (
        <EmptyState title="No links match">
          <p>Nothing matches this search and these filters.</p>
          <button type="button" class="button secondary" onClick={() => onFilters({})}>
            Clear search and filters
          </button>
        </EmptyState>
      )}
      <Loading active={loading} />
      {cursor && !loading && !error && (
        <p class="more">
          <button type="button" class="button secondary" onClick={() => load(cursor)}>
            Load more
          </button>
        </p>
      )}
      <NewLinkDialog
        open={creating}
        projects={projects.data?.projects ?? []}
        domains={domains.list}
        onClose={() => setCreating(false)}
        onCreated={(link) => navigate(`${linkPagePath(link.id)}?created=1`)}
      />
    </>
  );
}
