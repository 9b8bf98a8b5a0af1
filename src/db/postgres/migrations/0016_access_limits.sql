-- Limits of an account (to projects) and of a key (to projects and domains): JSON arrays of
-- ids, NULL for no limit. Read with the key on every request, never searched, so no index.
ALTER TABLE accounts ADD COLUMN projects text;
ALTER TABLE api_keys ADD COLUMN projects text;
ALTER TABLE api_keys ADD COLUMN domains text;
