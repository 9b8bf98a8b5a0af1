ALTER TABLE `import_links` ADD `source_counts` text;--> statement-breakpoint
ALTER TABLE `import_runs` ADD `file_head` text;--> statement-breakpoint
CREATE INDEX `import_runs_file_idx` ON `import_runs` (`identity`,`file_head`,`started_at`);