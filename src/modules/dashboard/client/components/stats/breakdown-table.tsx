/**
 * One breakdown as a table: the value (always as text; a link only to our own pages), its
 * clicks, its share of the window's clicks, and a bar scaled to the top row (so the rows of a
 * long, flat list still differ at a glance). The bar's width is set
 * through the CSSOM (Preact's style object), never as a `style` attribute, which the CSP blocks.
 * Long lists show their top rows first.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber, formatPercent } from '../../lib/format';

export interface BreakdownRow {
  key: string;
  label: string;
  /** A second, quieter line under the label (a city's country). */
  note?: string;
  clicks: number;
  /** A dashboard path the label links to. */
  href?: string;
}

export interface BreakdownTableProps {
  id: string;
  title: string;
  /** The first column's heading. */
  column: string;
  rows: BreakdownRow[];
  /** What the shares are of: the window's clicks. */
  total: number;
  /** Shown instead of the table when there are no rows: what the reader can do about it. */
  empty: ComponentChildren;
  /** Shown between the heading and the table (the world map). */
  lead?: ComponentChildren;
  /** Shown under the table (the geolocation credit). */
  children?: ComponentChildren;
  /**
   * This server does not collect the dimension (SLINK_GEO, SLINK_REFERRER: the payload's
   * notCollected): said so, and the caller leaves the unknown row out (every click is unknown
   * there now); values of clicks stored before still show. The word for what is not kept.
   */
  notCollected?: string;
}

const FIRST_ROWS = 10;

export function BreakdownTable(props: BreakdownTableProps) {
  const { id, title, column, rows, total, lead, children, notCollected } = props;
  const empty = notCollected ? null : props.empty;
  const [all, setAll] = useState(false);
  const shown = all ? rows : rows.slice(0, FIRST_ROWS);
  const top = Math.max(1, ...rows.map((r) => r.clicks));
  return (
    <section class={lead ? 'panel breakdown wide' : 'panel breakdown'} aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {notCollected && (
        <p class="hint not-collected">
          <strong>Not collected.</strong> This server keeps no {notCollected} of a click
          {rows.length > 0 ? '; the values below are of clicks stored before.' : '.'}
        </p>
      )}
      <div class="breakdown-body">
        {lead}
        {rows.length === 0 ? (
          empty !== null && <p class="hint">{empty}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{column}</th>
                  <th scope="col" class="num">
                    Clicks
                  </th>
                  <th scope="col" class="num">
                    Share
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((row) => {
                  const share = total > 0 ? Math.min(1, row.clicks / total) : 0;
                  return (
                    <tr key={row.key}>
                      <td class="bar-cell">
                        <span class="bar-label">{row.href ? <a href={row.href}>{row.label}</a> : row.label}</span>
                        {row.note && <span class="bar-note">{row.note}</span>}
                        <span class="bar" aria-hidden="true">
                          <span class="bar-fill" style={{ width: `${(row.clicks / top) * 100}%` }} />
                        </span>
                      </td>
                      <td class="num">{formatNumber(row.clicks)}</td>
                      <td class="num">{formatPercent(share)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </div>
      {rows.length > FIRST_ROWS && (
        <p class="more">
          <button type="button" class="button small secondary" aria-expanded={all} onClick={() => setAll(!all)}>
            {all ? `Show the top ${FIRST_ROWS}` : `Show all ${rows.length}`}
          </button>
        </p>
      )}
      {children}
    </section>
  );
}
