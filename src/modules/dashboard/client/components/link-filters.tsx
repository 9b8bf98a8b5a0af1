/**
 * The links list's search and filters. They live in the address
 * (?q=&tag=&project=&status=&availability=&domain=&sort=) so a filtered list can be bookmarked and Back
 * restores it; the search box waits for a pause in typing before it asks the server. Status
 * offers what visitors get (lib/status-filter.ts), not only the stored status.
 */
import { useEffect, useState } from 'preact/hooks';
import type { LinkFilters } from '../api/links';
import type { Domain, Project } from '../api/types';
import { domainOptions } from '../lib/domains';
import { statusOptions, withStatusValue } from '../lib/status-filter';
import { SelectField } from './field';
import { projectOptions } from './project-select';

export interface LinkFiltersProps {
  filters: LinkFilters;
  tags: { tag: string; count: number }[];
  projects: Project[];
  /** The domain filter shows when there is more than one domain (or the address names one). */
  domains: Domain[];
  onChange(filters: LinkFilters): void;
}

const SORT_OPTIONS = [
  { value: 'created', label: 'Newest first' },
  { value: 'oldest', label: 'Oldest first' },
  { value: 'clicks', label: 'Most clicks' },
  { value: 'updated', label: 'Recently updated' },
];

/** The domains to choose from, with the one the address names even if it is gone (so it shows as chosen). */
function domainsWith(domains: Domain[], host: string | undefined) {
  const options = domainOptions(domains);
  return host && !options.some((o) => o.value === host) ? [...options, { value: host, label: host }] : options;
}

export function LinkFiltersBar({ filters, tags, projects, domains, onChange }: LinkFiltersProps) {
  const [q, setQ] = useState(filters.q ?? '');
  useEffect(() => setQ(filters.q ?? ''), [filters.q]);
  useEffect(() => {
    if (q === (filters.q ?? '')) return;
    const timer = setTimeout(() => onChange({ ...filters, q: q || undefined }), 300);
    return () => clearTimeout(timer);
  }, [q, filters, onChange]);

  const set = (key: keyof LinkFilters) => (value: string) => onChange({ ...filters, [key]: value || undefined });
  const status = statusOptions(filters);
  return (
    <search class="filters">
      <div class="field grow">
        <label for="link-search">Search</label>
        <input
          id="link-search"
          type="search"
          value={q}
          placeholder="Slug, title or destination"
          onInput={(e) => setQ(e.currentTarget.value)}
        />
      </div>
      <SelectField
        label="Tag"
        value={filters.tag ?? ''}
        onValue={set('tag')}
        blank="Any tag"
        options={tags.map((t) => ({ value: t.tag, label: `${t.tag} (${t.count})` }))}
      />
      <SelectField
        label="Project"
        value={filters.project ?? ''}
        onValue={set('project')}
        blank="Any project"
        options={[{ value: 'none', label: 'No project' }, ...projectOptions(projects)]}
      />
      {(domains.length > 1 || filters.domain) && (
        <SelectField
          label="Domain"
          value={filters.domain ?? ''}
          onValue={set('domain')}
          blank="Any domain"
          options={domainsWith(domains, filters.domain)}
        />
      )}
      <SelectField
        label="Status"
        value={status.value}
        onValue={(value) => onChange(withStatusValue(filters, value))}
        options={status.options}
      />
      <SelectField label="Sort" value={filters.sort ?? 'created'} onValue={set('sort')} options={SORT_OPTIONS} />
    </search>
  );
}
