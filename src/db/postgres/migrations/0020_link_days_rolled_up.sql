-- A link's day buckets are rolled up from its hour buckets once the day is over, as on SQLite
-- (rollups/postgres/link-days.ts): the fold writes a link's hour buckets only, and its days from
-- its mark (rollup_marks.days_before) on are read as sums of its hours. Until now every link's
-- day buckets were complete, so each link's mark becomes the day after its last day bucket (a
-- mark copied from SQLite by copy-to is kept where it is later).
INSERT INTO rollup_marks (scope, days_before)
SELECT scope, max(start) + 86400000 FROM rollups WHERE scope <> 0 AND grain = 1 GROUP BY scope
ON CONFLICT (scope) DO UPDATE SET days_before = greatest(rollup_marks.days_before, excluded.days_before);
