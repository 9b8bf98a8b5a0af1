ALTER TABLE `links` ADD `password_hash` text;--> statement-breakpoint
ALTER TABLE `links` ADD `rules` text;--> statement-breakpoint
ALTER TABLE `links` ADD `preview` text;