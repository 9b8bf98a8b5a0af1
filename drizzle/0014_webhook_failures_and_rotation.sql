ALTER TABLE `webhooks` ADD `previous_secret` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `previous_secret_until` integer;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `failing_since` integer;