DROP TABLE `visitor_days`;--> statement-breakpoint
-- Uniques are decided in memory now. Every click already stored was counted in the rollups when
-- it was written: all folded (0 on a new database).
INSERT OR IGNORE INTO `click_state` (`name`, `value`) SELECT 'folded_through', coalesce((SELECT `value` FROM `click_state` WHERE `name` = 'last_id'), 0);
