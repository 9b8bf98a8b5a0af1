-- Webhooks (docs/behaviour.md, "Webhooks"): where events are delivered. The secret is kept as
-- issued: every delivery is signed with it.
CREATE TABLE webhooks (
  id text PRIMARY KEY,
  url text NOT NULL,
  description text,
  events text NOT NULL,
  bots boolean NOT NULL DEFAULT false,
  secret text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  consecutive_failures int4 NOT NULL DEFAULT 0,
  disabled_reason text,
  created_at int8 NOT NULL,
  updated_at int8 NOT NULL
);
CREATE INDEX webhooks_created_idx ON webhooks (created_at, id);
