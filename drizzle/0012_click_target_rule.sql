DROP INDEX `click_targets_key`;--> statement-breakpoint
ALTER TABLE `click_targets` ADD `rule` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `click_targets_key` ON `click_targets` (`link_id`,`variant_id`,`code`,`destination`,`params`,`rule`);