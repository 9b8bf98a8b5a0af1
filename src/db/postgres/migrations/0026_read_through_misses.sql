-- Read-through's remembered answers shared by every node (redirect/read-through/postgres.ts): a
-- slug the upstream did not redirect, or failed for, is not asked again by any node until
-- `until` (epoch ms). Expired rows are deleted as new ones come. UNLOGGED: no WAL per miss, and
-- a crash of the server empties it, as a restart empties a node's memory.
CREATE UNLOGGED TABLE read_through_misses (
  domain_id int4 NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  upstream text NOT NULL,
  slug text COLLATE "C" NOT NULL,
  until int8 NOT NULL,
  PRIMARY KEY (domain_id, slug, upstream)
);
CREATE INDEX read_through_misses_until ON read_through_misses (until);
