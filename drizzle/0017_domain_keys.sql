-- The foreign key of links.domain_id, which SQLite could not add with the column (a column added
-- with a reference must default to null): a link names an existing domain, and a domain with
-- links is not deleted. The same message as SQLite's own foreign keys, naming the column, so the
-- service tells it from the project's (links/service.ts).
CREATE TRIGGER links_domain_insert BEFORE INSERT ON links
WHEN NOT EXISTS (SELECT 1 FROM domains WHERE id = NEW.domain_id)
BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: links.domain_id'); END;
--> statement-breakpoint
CREATE TRIGGER links_domain_update BEFORE UPDATE OF domain_id ON links
WHEN NOT EXISTS (SELECT 1 FROM domains WHERE id = NEW.domain_id)
BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: links.domain_id'); END;
--> statement-breakpoint
CREATE TRIGGER domains_links_delete BEFORE DELETE ON domains
WHEN EXISTS (SELECT 1 FROM links WHERE domain_id = OLD.id)
BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: links.domain_id'); END;
