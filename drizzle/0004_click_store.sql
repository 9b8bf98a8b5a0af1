CREATE TABLE `click_blocks` (
	`seg` integer NOT NULL,
	`link` integer NOT NULL,
	`first_id` integer NOT NULL,
	`last_id` integer NOT NULL,
	`min_time` integer NOT NULL,
	`max_time` integer NOT NULL,
	`count` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`seg`, `link`)
);
--> statement-breakpoint
CREATE TABLE `click_segments` (
	`seg` integer PRIMARY KEY NOT NULL,
	`first_id` integer NOT NULL,
	`last_id` integer NOT NULL,
	`min_time` integer NOT NULL,
	`max_time` integer NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `click_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `click_tail` (
	`id` integer PRIMARY KEY NOT NULL,
	`link` integer NOT NULL,
	`time` integer NOT NULL,
	`target` integer NOT NULL,
	`country` integer NOT NULL,
	`city` integer NOT NULL,
	`device` integer NOT NULL,
	`os` integer NOT NULL,
	`browser` integer NOT NULL,
	`referrer` integer NOT NULL,
	`traffic` integer NOT NULL,
	`language` integer NOT NULL,
	`visitor` integer NOT NULL,
	`flags` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `click_targets` (
	`id` integer PRIMARY KEY NOT NULL,
	`link_id` text NOT NULL,
	`variant_id` text DEFAULT '' NOT NULL,
	`code` text,
	`destination` text NOT NULL,
	`params` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_targets_key` ON `click_targets` (`link_id`,`variant_id`,`code`,`destination`,`params`);