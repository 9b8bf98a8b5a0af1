-- A click batch's additions to the counters and rollups (clicks/postgres/deltas.ts): written in
-- the batch's transaction with its raw clicks, counted later by the fold (clicks/postgres/fold.ts),
-- which deletes the rows it counted in its own transaction. Batches then never read or lock a
-- bucket, and one fold merges many batches.
CREATE TABLE click_deltas (
  id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  data bytea NOT NULL
);
