ALTER TABLE `links` ADD `fallback_url` text;--> statement-breakpoint
ALTER TABLE `links` ADD `redirect_status` integer DEFAULT 302 NOT NULL;--> statement-breakpoint
ALTER TABLE `links` ADD `forward_query` integer DEFAULT false NOT NULL;