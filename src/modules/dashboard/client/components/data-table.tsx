/** A table that scrolls sideways on narrow screens, with a last, unlabelled column for actions. */
import type { ComponentChildren } from 'preact';

export function DataTable({ columns, children }: { columns: string[]; children: ComponentChildren }) {
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
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
