/**
 * A table that scrolls sideways on narrow screens, with a last, unlabelled column for actions
 * unless `actions` is false.
 */
import type { ComponentChildren } from 'preact';

export interface DataTableProps {
  columns: string[];
  actions?: boolean;
  children: ComponentChildren;
}

export function DataTable({ columns, actions = true, children }: DataTableProps) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
