/**
 * Every breakdown of the statistics payload as a table, grouped: where clicks came from (places,
 * sources, campaigns) and what they came with (devices, languages, variants, a link's rules, parameters).
 * Empty breakdowns say what would fill them. Variants read differently for a link (its own
 * clicks as a row) and for the workspace (per link, linked): lib/variant-rows.ts.
 */
import type { Breakdowns as BreakdownLists, Rule, Stats, WorkspaceStats } from '../../api/types';
import { ruleBreakdownRows } from '../../lib/rule-labels';
import { type BreakdownKind, breakdownLabel } from '../../lib/stats-labels';
import { variantRows } from '../../lib/variant-rows';
import { BreakdownTable } from './breakdown-table';
import { GeoBreakdowns } from './geo-breakdowns';

type ValueList = Exclude<keyof BreakdownLists, 'city' | 'params' | 'variant' | 'rule'>;

interface Section {
  list: Exclude<ValueList, 'country'>;
  title: string;
  column: string;
  kind: BreakdownKind;
  empty: string;
}

const UTM_EMPTY = (key: string) => `No clicks carried ${key}. Add it to the link's or a variant's parameters.`;

const SECTIONS: Section[] = [
  { list: 'referrer', title: 'Referrers', column: 'Site', kind: 'referrer', empty: 'No clicks in this range.' },
  {
    list: 'trafficType',
    title: 'Traffic types',
    column: 'Type',
    kind: 'trafficType',
    empty: 'No clicks in this range.',
  },
  { list: 'utmSource', title: 'UTM sources', column: 'utm_source', kind: 'utm', empty: UTM_EMPTY('utm_source') },
  { list: 'utmMedium', title: 'UTM media', column: 'utm_medium', kind: 'utm', empty: UTM_EMPTY('utm_medium') },
  {
    list: 'utmCampaign',
    title: 'UTM campaigns',
    column: 'utm_campaign',
    kind: 'utm',
    empty: UTM_EMPTY('utm_campaign'),
  },
  { list: 'device', title: 'Devices', column: 'Device', kind: 'device', empty: 'No clicks in this range.' },
  { list: 'os', title: 'Operating systems', column: 'System', kind: 'os', empty: 'No clicks in this range.' },
  { list: 'browser', title: 'Browsers', column: 'Browser', kind: 'browser', empty: 'No clicks in this range.' },
  { list: 'language', title: 'Languages', column: 'Language', kind: 'language', empty: 'No clicks in this range.' },
];

export interface BreakdownsProps {
  stats: Stats | WorkspaceStats;
  /** The window as the address has it (`?range=7d`), for links to other statistics pages. */
  search: string;
  /** A link's rules as they are now (its rule breakdown says where each sends visitors). */
  rules?: readonly Rule[];
}

/** A link's variants add up to its clicks; the workspace's leave out the links' own clicks. */
function VariantsNote({ stats }: { stats: Stats | WorkspaceStats }) {
  if ('topLinks' in stats) return <p class="hint">Clicks on the links themselves are not counted here.</p>;
  if (!stats.breakdowns.variant.some((e) => e.value === '')) return null;
  return (
    <p class="hint">
      No variant: clicks on the short link itself, and on codes that match no variant
      {stats.unknownVariants.length > 0 ? ' (listed under Unrecognised variant codes)' : ''}.
    </p>
  );
}

/**
 * Clicks a link's rules sent, by rule (numbered from 1 as the link page numbers them, with where
 * the rule sends visitors now); shown only when some were, since most links have no rules. Not
 * for the workspace: rules of different links have nothing in common but their number.
 */
function RuleBreakdown({
  stats,
  rules,
  total,
}: {
  stats: Stats | WorkspaceStats;
  rules: readonly Rule[];
  total: number;
}) {
  const { rule } = stats.breakdowns;
  if (rule.length === 0 || 'topLinks' in stats) return null;
  return (
    <BreakdownTable
      id="bd-rule"
      title="Link rules"
      column="Rule"
      total={total}
      empty=""
      rows={ruleBreakdownRows(rule, rules)}
    >
      <p class="hint">
        Numbered as the rules were when clicked; where each sends visitors as the rules are now. Clicks no rule matched
        went to the link's own destination and are not listed.
      </p>
    </BreakdownTable>
  );
}

export function Breakdowns({ stats, search, rules = [] }: BreakdownsProps) {
  const total = stats.totals.clicks;
  const { params, variant } = stats.breakdowns;
  return (
    <div class="breakdowns">
      <GeoBreakdowns stats={stats} />
      {SECTIONS.map((s) => {
        // Not collected (the referrer with SLINK_REFERRER=none): no unknown bar, the panel says so.
        const off = s.list === 'referrer' && stats.notCollected.includes('referrer');
        return (
          <BreakdownTable
            key={s.list}
            id={`bd-${s.list}`}
            title={s.title}
            column={s.column}
            total={total}
            empty={s.empty}
            notCollected={off ? 'referrer' : undefined}
            rows={stats.breakdowns[s.list]
              .filter((e) => !off || e.value !== null)
              .map((e) => ({ key: e.value ?? '', label: breakdownLabel(s.kind, e.value), clicks: e.clicks }))}
          />
        );
      })}
      <BreakdownTable
        id="bd-variant"
        title="Variants"
        column="Variant"
        total={total}
        empty="No clicks through a variant. Add variants to tell channels apart."
        rows={variantRows(variant, search)}
      >
        {variant.length > 0 && <VariantsNote stats={stats} />}
      </BreakdownTable>
      <RuleBreakdown stats={stats} rules={rules} total={total} />
      <BreakdownTable
        id="bd-params"
        title="Parameters"
        column="Parameter"
        total={total}
        empty="No custom parameters. Add some to the link or a variant to count them here."
        rows={params.map((p) => ({
          key: JSON.stringify([p.key, p.value]),
          label: `${p.key} = ${p.value}`,
          clicks: p.clicks,
        }))}
      />
      {stats.unknownVariants.length > 0 && (
        <BreakdownTable
          id="bd-unknown-variants"
          title="Unrecognised variant codes"
          column="Code in the address"
          total={total}
          empty=""
          rows={stats.unknownVariants.map((u) => ({ key: u.code, label: u.code, clicks: u.clicks }))}
        >
          <p class="hint">These codes match no variant (never did, or it was deleted); the clicks went to the link.</p>
        </BreakdownTable>
      )}
    </div>
  );
}
