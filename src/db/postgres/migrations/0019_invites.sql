-- Invites (modules/invites/table.ts): a one-time address where an invited person sets a
-- password. Only the SHA-256 of the address's secret is stored.
CREATE TABLE invites (
  id text COLLATE "C" PRIMARY KEY,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  projects text,
  token_hash text NOT NULL,
  created_by text COLLATE "C",
  created_at int8 NOT NULL,
  expires_at int8 NOT NULL,
  used_at int8,
  revoked_at int8
);
CREATE UNIQUE INDEX invites_token_hash_unique ON invites (token_hash);
CREATE INDEX invites_email_idx ON invites (slink_ascii_lower(email));
