-- Imports (modules/imports/table.ts): each run, what each source link became (the link made
-- from it, the newest history stored: a re-run makes nothing twice), and each run's report.
-- The source's token is never stored.
CREATE TABLE import_runs (
  id text COLLATE "C" PRIMARY KEY,
  source text NOT NULL,
  url text,
  identity text COLLATE "C" NOT NULL,
  options text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
  links_seen int8 NOT NULL DEFAULT 0,
  links_created int8 NOT NULL DEFAULT 0,
  links_skipped int8 NOT NULL DEFAULT 0,
  links_failed int8 NOT NULL DEFAULT 0,
  clicks_imported int8 NOT NULL DEFAULT 0,
  errors text NOT NULL,
  cursor text,
  cancel_requested boolean NOT NULL DEFAULT false,
  node text NOT NULL,
  pid int8 NOT NULL,
  instance text NOT NULL,
  account_id text COLLATE "C",
  via text NOT NULL,
  started_at int8 NOT NULL,
  ended_at int8
);
CREATE INDEX import_runs_started_idx ON import_runs (started_at, id);
CREATE INDEX import_runs_identity_idx ON import_runs (identity, started_at);
-- One run at a time per source (the advisory lock of the node running it says it is alive).
CREATE UNIQUE INDEX import_runs_running_unique ON import_runs (identity) WHERE status = 'running';
CREATE TABLE import_links (
  identity text COLLATE "C" NOT NULL,
  source_id text COLLATE "C" NOT NULL,
  link_id text COLLATE "C" NOT NULL,
  state text NOT NULL CHECK (state IN ('creating', 'created')),
  run_id text COLLATE "C" NOT NULL,
  visit_at int8,
  day text,
  total_set boolean NOT NULL DEFAULT false,
  at int8 NOT NULL,
  PRIMARY KEY (identity, source_id)
);
CREATE INDEX import_links_link_idx ON import_links (link_id);
CREATE TABLE import_items (
  run_id text COLLATE "C" NOT NULL,
  seq int8 NOT NULL,
  source_id text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('created', 'existing', 'skipped', 'failed')),
  link_id text COLLATE "C",
  short_url text,
  reason text,
  PRIMARY KEY (run_id, seq)
);
