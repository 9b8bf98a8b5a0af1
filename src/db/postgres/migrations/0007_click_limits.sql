-- The click limit's count that every node shares (links/click-limits-postgres.ts): one row per
-- link with a click limit that a human click has reached, holding the human clicks let through
-- so far. It is created at the link's first such click, from the link's stored human clicks, and
-- goes with its link. A node lets a human click through only by raising it below the limit.
CREATE TABLE click_limits (
  link_id text COLLATE "C" PRIMARY KEY REFERENCES links (id) ON DELETE CASCADE,
  used int8 NOT NULL
);
