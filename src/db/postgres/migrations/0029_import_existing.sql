-- Of a run's skipped source links, those an earlier run of the same source made (their report's
-- outcome `existing`, imports/table.ts import_runs.links_existing): a re-run says so.
ALTER TABLE import_runs ADD COLUMN links_existing int8 NOT NULL DEFAULT 0;
