-- A file run's file by the SHA-256 of its first line (imports/table.ts import_runs.file_head):
-- the run a later file resumes is looked up by it, however many runs came since.
ALTER TABLE import_runs ADD COLUMN file_head text;
CREATE INDEX import_runs_file_idx ON import_runs (identity, file_head, started_at);
-- Another Slink's own counts of a link as of the export whose counts beyond its lines were last
-- taken (import_links.source_counts, JSON): a later export adds what they grew by.
ALTER TABLE import_links ADD COLUMN source_counts text;
