CREATE TABLE `imported_days` (
	`link_id` text NOT NULL,
	`start` integer NOT NULL,
	`clicks` integer NOT NULL,
	PRIMARY KEY(`link_id`, `start`),
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
