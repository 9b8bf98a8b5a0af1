/** /app/tags: every tag in use with how many links carry it, most used first, each leading to its links. */
import { listTags } from '../api/links';
import { DataTable } from '../components/data-table';
import { EmptyState, ResourceStatus } from '../components/feedback';
import { formatNumber } from '../lib/format';
import { usePageTitle, useResource } from '../lib/hooks';

export function TagsPage() {
  usePageTitle('Tags');
  const tags = useResource(listTags, []);
  const items = tags.data?.tags ?? [];
  return (
    <>
      <h1>Tags</h1>
      <p>Tags label links across projects; a link can carry many.</p>
      <ResourceStatus resource={tags} />
      {tags.data && items.length === 0 && (
        <EmptyState title="No tags yet">
          <p>
            Tag a link on its page or in New link (tags separated by commas), or give tags to every link of a Bulk
            create.
          </p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <div class="measure">
          <DataTable columns={['Tag', 'Links']} actions={false}>
            {items.map(({ tag, count }) => (
              <tr key={tag}>
                <td class="wrap">
                  <a href={`/app?tag=${encodeURIComponent(tag)}`}>{tag}</a>
                </td>
                <td>{formatNumber(count)}</td>
              </tr>
            ))}
          </DataTable>
          <p class="hint table-note">
            Counts include archived links, which the links list shows under the status Archived.
          </p>
        </div>
      )}
    </>
  );
}
