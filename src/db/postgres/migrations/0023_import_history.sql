-- Where part of a link's history came from (links/table.ts link_counters, imports/history):
-- the source, when it was first imported, how much history and the clicks it brought. Null on
-- every link no import made or fed (added without a default: no table rewrite).
ALTER TABLE link_counters ADD COLUMN imported_source text;
ALTER TABLE link_counters ADD COLUMN imported_at int8;
ALTER TABLE link_counters ADD COLUMN imported_history text;
ALTER TABLE link_counters ADD COLUMN imported_clicks int8;
