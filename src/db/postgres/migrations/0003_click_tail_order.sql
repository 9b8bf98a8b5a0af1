-- The clicks list and the export read a link's clicks newest first by (time, id): a key in that
-- order makes each page a range of the index, where (link, id) made every page sort all of the
-- link's tail rows (a page of a link with 200,000 rows: 141 ms). Same width per row but 8 bytes.
ALTER TABLE click_tail DROP CONSTRAINT click_tail_pkey;
ALTER TABLE click_tail ADD CONSTRAINT click_tail_pkey PRIMARY KEY (link, time, id);
