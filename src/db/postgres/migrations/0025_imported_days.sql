-- Imported daily counts once counted (clicks/table.ts imported_days): a link's clicks of a UTC
-- day that a source gave only as a count, kept apart since no raw click holds them, so
-- statistics rebuilt from the raw clicks can add them back. Gone with the link.
CREATE TABLE imported_days (
  link_id text NOT NULL REFERENCES links(id) ON DELETE CASCADE,
  start int8 NOT NULL,
  clicks int8 NOT NULL,
  PRIMARY KEY (link_id, start)
);
