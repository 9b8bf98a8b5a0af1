-- The audit log filtered by action, or by kind of target alone: an index each, walked in id
-- order (newest first), as the target's and the actor's are (modules/audit/table.ts).
CREATE INDEX audit_log_action_idx ON audit_log (action, id);
CREATE INDEX audit_log_type_idx ON audit_log (target_type, id);
