-- Accounts, keys, sessions, projects, links and their tags, counters and variants.
-- Times are epoch milliseconds in int8 (as in the SQLite engine), so that every layer above the
-- stores sees the same numbers whichever engine is below. Text ids are the application's own
-- (`lnk_...`), never sequences: several nodes create rows without asking each other. Ids,
-- slugs, codes and tags compare bytewise (COLLATE "C"), as SQLite's BINARY does, whatever the
-- database's default collation. Params are JSON text, not jsonb: jsonb would reorder the keys,
-- and a redirect applies them in the order they were given.

-- Case-insensitive where SQLite's lower() and LIKE are: ASCII letters only, so that both engines
-- agree on which names collide and which links a search finds.
CREATE FUNCTION slink_ascii_lower(t text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');

CREATE TABLE accounts (
  id text COLLATE "C" PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  is_superuser boolean NOT NULL DEFAULT false,
  created_at int8 NOT NULL,
  last_sign_in_at int8,
  disabled_at int8
);
-- Emails are unique without regard to case.
CREATE UNIQUE INDEX accounts_email_unique ON accounts (slink_ascii_lower(email));

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text,
  prefix text NOT NULL,
  hash text NOT NULL,
  scope text NOT NULL,
  expires_at int8,
  revoked_at int8,
  last_used_at int8,
  created_at int8 NOT NULL
);
CREATE UNIQUE INDEX api_keys_prefix_unique ON api_keys (prefix);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

CREATE TABLE sessions (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_hash text NOT NULL,
  created_at int8 NOT NULL,
  last_seen_at int8 NOT NULL,
  expires_at int8 NOT NULL,
  user_agent text
);
CREATE UNIQUE INDEX sessions_token_hash_unique ON sessions (token_hash);
CREATE INDEX sessions_account_idx ON sessions (account_id);

CREATE TABLE projects (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  created_at int8 NOT NULL,
  updated_at int8 NOT NULL
);
-- Names are unique without regard to case ("Ads" and "ads" would confuse people).
CREATE UNIQUE INDEX projects_name_unique ON projects (slink_ascii_lower(name));

CREATE TABLE links (
  id text COLLATE "C" PRIMARY KEY,
  -- Slugs are case-sensitive: the C collation compares bytes, as SQLite's BINARY does.
  slug text COLLATE "C" NOT NULL,
  destination text NOT NULL,
  title text,
  status text NOT NULL DEFAULT 'active',
  params text NOT NULL,
  project_id text COLLATE "C" REFERENCES projects (id) ON DELETE SET NULL,
  expires_at int8,
  click_limit int8,
  created_at int8 NOT NULL,
  updated_at int8 NOT NULL
);
CREATE UNIQUE INDEX links_slug_unique ON links (slug);
-- One index per sort order, each ending in id so keyset paging has a total order.
CREATE INDEX links_created_idx ON links (created_at, id);
CREATE INDEX links_updated_idx ON links (updated_at, id);
CREATE INDEX links_project_idx ON links (project_id);
CREATE INDEX links_destination_idx ON links (destination);

CREATE TABLE link_tags (
  link_id text COLLATE "C" NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  tag text COLLATE "C" NOT NULL,
  PRIMARY KEY (link_id, tag)
);
CREATE INDEX link_tags_tag_idx ON link_tags (tag);

-- A link's click counters: one narrow row per link, written with it, gone with it.
CREATE TABLE link_counters (
  link_id text COLLATE "C" PRIMARY KEY REFERENCES links (id) ON DELETE CASCADE,
  clicks int8 NOT NULL DEFAULT 0,
  uniques int8 NOT NULL DEFAULT 0,
  bots int8 NOT NULL DEFAULT 0,
  last_clicked_at int8
);
CREATE INDEX link_counters_clicks_idx ON link_counters (clicks, link_id);

CREATE TABLE variants (
  id text COLLATE "C" PRIMARY KEY,
  link_id text COLLATE "C" NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  code text COLLATE "C" NOT NULL,
  params text NOT NULL,
  click_count int8 NOT NULL DEFAULT 0,
  created_at int8 NOT NULL,
  updated_at int8 NOT NULL
);
CREATE UNIQUE INDEX variants_link_code_unique ON variants (link_id, code);
