-- Another node takes a crashed import over (modules/imports/takeover.ts). Each node publishes
-- the public half of a key pair made at its start (the private half lives only in its memory),
-- and holds a session advisory lock (IMPORT_NODE_LOCK_CLASS, its instance's hashtext) while it
-- lives: a row whose lock nobody holds is a dead node's, dropped. The node running an import
-- keeps the source's token sealed to each live node's key, and a file's bytes, only while the
-- run lives; the token itself is never stored.
CREATE TABLE import_nodes (
  instance text COLLATE "C" PRIMARY KEY,
  node text NOT NULL,
  public_key text NOT NULL,
  started_at int8 NOT NULL
);
CREATE TABLE import_run_keys (
  run_id text COLLATE "C" NOT NULL,
  instance text COLLATE "C" NOT NULL,
  sealed text NOT NULL,
  PRIMARY KEY (run_id, instance)
);
CREATE INDEX import_run_keys_instance_idx ON import_run_keys (instance);
CREATE TABLE import_run_files (
  run_id text COLLATE "C" NOT NULL,
  seq int4 NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (run_id, seq)
);
