-- The link's redirect options (docs/behaviour.md, "Redirects"): the page an expired link or one
-- past its click limit sends visitors to, the status of its redirects, and whether the visitor's
-- query is forwarded. Old links keep what they did: no fallback, 302, no forwarding.
ALTER TABLE links ADD COLUMN fallback_url text;
ALTER TABLE links ADD COLUMN redirect_status int4 NOT NULL DEFAULT 302;
ALTER TABLE links ADD COLUMN forward_query boolean NOT NULL DEFAULT false;
