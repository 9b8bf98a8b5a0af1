CREATE TABLE `visitor_salts` (
	`day` integer PRIMARY KEY NOT NULL,
	`salt` text NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_visitor_days` (
	`link_id` text NOT NULL,
	`day` integer NOT NULL,
	`visitor_hash` text NOT NULL,
	PRIMARY KEY(`day`, `link_id`, `visitor_hash`),
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_visitor_days`("link_id", "day", "visitor_hash") SELECT "link_id", "day", "visitor_hash" FROM `visitor_days`;--> statement-breakpoint
DROP TABLE `visitor_days`;--> statement-breakpoint
ALTER TABLE `__new_visitor_days` RENAME TO `visitor_days`;--> statement-breakpoint
PRAGMA foreign_keys=ON;