-- The search index is filled in batches instead of by a trigger on every insert: a send commits one
-- transaction, and FTS5 writes a new index segment for each one (and merges them), which cost a send
-- more than everything else it writes. `indexed_seq`: messages up to it are indexed; newer ones are
-- added by durable-objects/channel/hot-sql.ts (indexPending), by a send once a batch is waiting
-- and by any search before it reads the index, so searches still see every retained message.
-- Hand-written below the generated column: drizzle-kit cannot express triggers.
ALTER TABLE `channel` ADD `indexed_seq` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Everything retained so far was indexed by the insert trigger of 0005.
UPDATE `channel` SET `indexed_seq` = `last_seq`;
--> statement-breakpoint
DROP TRIGGER `messages_fts_insert`;
--> statement-breakpoint
-- External content: a 'delete' must name exactly what was indexed, so rows never indexed are skipped.
DROP TRIGGER `messages_fts_delete`;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages`
WHEN old.seq <= (SELECT `indexed_seq` FROM `channel` WHERE `id` = 1) BEGIN
	INSERT INTO `messages_fts`(`messages_fts`, rowid, body) VALUES ('delete', old.seq, old.body);
END;
--> statement-breakpoint
DROP TRIGGER `messages_fts_update`;
--> statement-breakpoint
-- A row not indexed yet needs nothing: the batch will read its new body. (seq never changes.)
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF `body`, `seq` ON `messages`
WHEN old.seq <= (SELECT `indexed_seq` FROM `channel` WHERE `id` = 1) BEGIN
	INSERT INTO `messages_fts`(`messages_fts`, rowid, body) VALUES ('delete', old.seq, old.body);
	INSERT INTO `messages_fts`(rowid, body) VALUES (new.seq, new.body);
END;
