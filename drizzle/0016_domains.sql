CREATE TABLE `domains` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`host` text NOT NULL,
	`origin` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`root_url` text,
	`not_found_url` text,
	`expired_url` text,
	`upstream` text,
	`apple_app_site_association` text,
	`asset_links` text,
	`last_seen_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_host_unique` ON `domains` (`host`);--> statement-breakpoint
-- Every existing link moves to the first domain, named after SLINK_SHORT_HOST at the next start
-- (domains/start.ts): their short URLs stay as they were.
INSERT INTO `domains` (`id`, `host`, `origin`, `is_default`, `created_at`) VALUES (1, '', '', true, 0);--> statement-breakpoint
DROP INDEX `links_slug_unique`;--> statement-breakpoint
-- A default, since SQLite adds a NOT NULL column only with one; every insert names the domain.
ALTER TABLE `links` ADD `domain_id` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `links_domain_slug_unique` ON `links` (`domain_id`,`slug`);
