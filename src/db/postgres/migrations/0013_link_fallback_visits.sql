-- Visits answered with a link's fallback URL, counted apart from its clicks (docs/behaviour.md).
-- A column with a constant default: no table rewrite.
ALTER TABLE link_counters ADD COLUMN fallback_visits int8 NOT NULL DEFAULT 0;
