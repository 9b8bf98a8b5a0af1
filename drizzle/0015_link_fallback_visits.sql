-- Visits answered with a link's fallback URL, counted apart from its clicks (docs/behaviour.md).
ALTER TABLE `link_counters` ADD `fallback_visits` integer DEFAULT 0 NOT NULL;