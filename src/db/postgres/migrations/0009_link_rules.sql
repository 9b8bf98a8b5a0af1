-- The link rules (docs/behaviour.md, "Link rules"): the argon2id hash of the link's password, its
-- ordered redirect rules and what social-preview crawlers are shown. Null: none of them, which
-- is what every older link keeps.
ALTER TABLE links ADD COLUMN password_hash text;
ALTER TABLE links ADD COLUMN rules text;
ALTER TABLE links ADD COLUMN preview text;
