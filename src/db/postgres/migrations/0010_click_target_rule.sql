-- The link rule that chose a click's destination (docs/behaviour.md, "Link rules"): its index in
-- the link's rules when clicked, null when none did. Part of the target's key, so clicks that
-- differ only by the rule that sent them stay apart.
ALTER TABLE click_targets ADD COLUMN rule int4;
DROP INDEX click_targets_key;
CREATE UNIQUE INDEX click_targets_key ON click_targets (link_id, variant_id, code, destination, params, rule) NULLS NOT DISTINCT;
