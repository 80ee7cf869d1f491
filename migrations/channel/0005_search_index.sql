-- Full-text index of retained message bodies (agent search and the administrators' content
-- search). Hand-written: drizzle-kit cannot express FTS5 virtual tables or triggers.
-- External content: the index stores no copy of a body; it reads `messages` for snippets.
-- trigram: substring matches and CJK text without word breaks; case_sensitive 0 and
-- remove_diacritics 1 fold case and accents (also decomposed ones) the way unicode61 does.
CREATE VIRTUAL TABLE `messages_fts` USING fts5(
	body,
	content='messages',
	content_rowid='seq',
	tokenize='trigram case_sensitive 0 remove_diacritics 1'
);
--> statement-breakpoint
-- Triggers keep the index in the same transaction as every write of `messages`: the insert, and
-- every delete path (retention, lowered limits, dissolution, purge) goes through them too.
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` BEGIN
	INSERT INTO `messages_fts`(rowid, body) VALUES (new.seq, new.body);
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
	INSERT INTO `messages_fts`(`messages_fts`, rowid, body) VALUES ('delete', old.seq, old.body);
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF `body`, `seq` ON `messages` BEGIN
	INSERT INTO `messages_fts`(`messages_fts`, rowid, body) VALUES ('delete', old.seq, old.body);
	INSERT INTO `messages_fts`(rowid, body) VALUES (new.seq, new.body);
END;
--> statement-breakpoint
-- Backfill: channels created before this migration get their retained messages indexed.
INSERT INTO `messages_fts`(`messages_fts`) VALUES ('rebuild');
