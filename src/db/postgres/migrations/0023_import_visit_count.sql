-- How many visits at exactly an import mapping's visit_at are stored (imports/table.ts
-- import_links): a re-run reads from that instant again and skips that many, so a visit the
-- source recorded in that same second after the last run read is not missed.
ALTER TABLE import_links ADD COLUMN visit_at_count int8 NOT NULL DEFAULT 0;
