CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`is_superuser` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (lower("email"));--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`scope` text NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_prefix_unique` ON `api_keys` (`prefix`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_name_unique` ON `projects` (lower("name"));--> statement-breakpoint
CREATE TABLE `link_tags` (
	`link_id` text NOT NULL,
	`tag` text NOT NULL,
	PRIMARY KEY(`link_id`, `tag`),
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `link_tags_tag_idx` ON `link_tags` (`tag`);--> statement-breakpoint
CREATE TABLE `links` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`destination` text NOT NULL,
	`title` text,
	`status` text DEFAULT 'active' NOT NULL,
	`params` text NOT NULL,
	`project_id` text,
	`click_count` integer DEFAULT 0 NOT NULL,
	`unique_count` integer DEFAULT 0 NOT NULL,
	`bot_count` integer DEFAULT 0 NOT NULL,
	`expires_at` integer,
	`click_limit` integer,
	`last_clicked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `links_slug_unique` ON `links` (`slug`);--> statement-breakpoint
CREATE INDEX `links_created_idx` ON `links` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `links_updated_idx` ON `links` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `links_clicks_idx` ON `links` (`click_count`,`id`);--> statement-breakpoint
CREATE INDEX `links_project_idx` ON `links` (`project_id`);--> statement-breakpoint
CREATE INDEX `links_destination_idx` ON `links` (`destination`);--> statement-breakpoint
CREATE TABLE `variants` (
	`id` text PRIMARY KEY NOT NULL,
	`link_id` text NOT NULL,
	`code` text NOT NULL,
	`params` text NOT NULL,
	`click_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variants_link_code_unique` ON `variants` (`link_id`,`code`);--> statement-breakpoint
CREATE TABLE `click_rollups` (
	`link_id` text NOT NULL,
	`hour` integer NOT NULL,
	`bot` integer NOT NULL,
	`dim` text NOT NULL,
	`key` text DEFAULT '' NOT NULL,
	`value` text NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`uniques` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`link_id`, `hour`, `bot`, `dim`, `key`, `value`),
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `click_rollups_hour_idx` ON `click_rollups` (`hour`,`dim`);--> statement-breakpoint
CREATE TABLE `clicks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`link_id` text NOT NULL,
	`timestamp` integer NOT NULL,
	`variant_id` text,
	`variant_code` text,
	`destination` text NOT NULL,
	`params` text NOT NULL,
	`country` text,
	`city` text,
	`device` text,
	`os` text,
	`browser` text,
	`referrer` text,
	`traffic_type` text,
	`language` text,
	`bot` integer NOT NULL,
	`visitor_hash` text,
	`first_of_day` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `clicks_link_time_idx` ON `clicks` (`link_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE TABLE `visitor_days` (
	`link_id` text NOT NULL,
	`day` integer NOT NULL,
	`visitor_hash` text NOT NULL,
	PRIMARY KEY(`link_id`, `day`, `visitor_hash`),
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
