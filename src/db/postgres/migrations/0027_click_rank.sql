-- The links list's click order from a coarse rank of `clicks` (links/postgres/click-order.ts). Every
-- fold's counters update changes `clicks` of most rows it touches: with an index on `clicks`
-- every such update wrote a new index entry and was never HOT. The rank changes far less often
-- once a count has grown (a step every ~2% of it), so with room left on each page (fillfactor)
-- most updates are HOT. Exact below 64 (equal rank is equal clicks there), then 32 steps per
-- doubling: monotone in `clicks`, so ordering by (rank, clicks, id) is ordering by (clicks, id).
-- A stored generated column: every writer of `clicks` (the fold, imports, resets, copy-to) keeps
-- it right without knowing of it. 46.166... is 32 / ln 2: floor(32 * log2(clicks)) - 128 is 64 at
-- 64 clicks (the greatest() holds it there whatever the last bit of ln() says).
CREATE FUNCTION slink_click_rank(clicks int8) RETURNS int4
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN clicks < 64 THEN greatest(clicks, -2147483648)::int4
    ELSE greatest(64, floor(ln(clicks::float8) * 46.16624130844683::float8) - 128)::int4 END;

ALTER TABLE link_counters SET (fillfactor = 80);
ALTER TABLE link_counters ADD COLUMN click_rank int4 NOT NULL GENERATED ALWAYS AS (slink_click_rank(clicks)) STORED;
CREATE INDEX link_counters_rank_idx ON link_counters (click_rank, link_id);
DROP INDEX link_counters_clicks_idx;
