-- What one process kept in memory and several nodes must share: the API rate limit's windows
-- (http/rate-limit-postgres.ts), sign-in failures (sessions/store-postgres.ts) and the first-run
-- setup tokens the nodes logged.
--
-- The windows are UNLOGGED: no WAL per request, and a crash of the database server empties them,
-- as a restart empties a single process's memory (a limit that forgets is the safe way to fail).
-- Their keys are HMAC-SHA256 of what they count (an API key, a client address, an email), keyed
-- with window_secret's random secret (db/postgres/window-keys.ts): never a raw address or email.

-- One row, made here from the server's strong random source (gen_random_uuid): every node reads it.
CREATE TABLE window_secret (
  id int4 PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL
);
INSERT INTO window_secret (id, secret)
  VALUES (1, replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

-- The API rate limit: hits per identity in fixed windows starting at the window's first hit.
CREATE UNLOGGED TABLE rate_limit_windows (
  identity text COLLATE "C" PRIMARY KEY,
  window_start int8 NOT NULL,
  hits int8 NOT NULL
);

-- Sign-in failures per email and per client address, in fixed windows starting at the first failure.
CREATE UNLOGGED TABLE sign_in_failures (
  key text COLLATE "C" PRIMARY KEY,
  window_start int8 NOT NULL,
  failures int4 NOT NULL
);

-- The SHA-256 of each running node's setup token (never the token): any node accepts any of
-- them while no account exists. A node deletes its own when it stops; all go with the first account.
CREATE TABLE setup_tokens (
  token_hash text COLLATE "C" PRIMARY KEY,
  created_at int8 NOT NULL
);
