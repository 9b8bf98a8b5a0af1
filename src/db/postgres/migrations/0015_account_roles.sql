-- Every account has a role: superusers become admins, the others editors (what they could do
-- before). The role is the one source of truth, so is_superuser goes.
ALTER TABLE accounts ADD COLUMN role text NOT NULL DEFAULT 'editor' CHECK (role IN ('admin', 'editor', 'viewer'));
UPDATE accounts SET role = 'admin' WHERE is_superuser;
ALTER TABLE accounts DROP COLUMN is_superuser;
