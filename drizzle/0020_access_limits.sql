ALTER TABLE `accounts` ADD `projects` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `projects` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `domains` text;