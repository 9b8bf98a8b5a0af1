-- Every account has a role; superusers become admins, the others editors (what they could do).
ALTER TABLE `accounts` ADD `role` text DEFAULT 'editor' NOT NULL;--> statement-breakpoint
UPDATE `accounts` SET `role` = 'admin' WHERE `is_superuser` = 1;
