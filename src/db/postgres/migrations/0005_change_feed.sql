-- The change feed of several nodes (links/changes-postgres.ts): every transaction that changes a
-- link's redirect facts (the link, its variants) adds one row naming the links it touched, and
-- notifies the channel `slink_link_changes`; every node reads the rows after the last one it
-- applied and refreshes those links in its slug index. Numbers are taken under an advisory lock
-- held to the commit (CHANGE_FEED_LOCK), so they are committed in order and a reader that saw
-- number n never sees a smaller one appear later.
CREATE SEQUENCE link_change_seq;
CREATE TABLE link_changes (
  seq int8 PRIMARY KEY,
  -- The process that made the change: it refreshed its own index already.
  instance text NOT NULL,
  ids text[] NOT NULL,
  at int8 NOT NULL
);
-- Changes are kept for a while and then pruned; a node that fell further behind than the pruned
-- number reloads every link instead (links/changes-postgres.ts).
-- One row: the number up to which changes are pruned.
CREATE TABLE link_changes_pruned (seq int8 NOT NULL);
INSERT INTO link_changes_pruned (seq) VALUES (0);
-- Counted by every fold and link deletion: a fold's cached workspace buckets are its own only
-- when nothing else wrote them since its last fold (rollups/postgres/buckets.ts).
-- One row.
CREATE TABLE rollup_writes (count int8 NOT NULL);
INSERT INTO rollup_writes (count) VALUES (0);
