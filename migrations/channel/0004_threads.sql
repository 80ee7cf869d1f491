ALTER TABLE `messages` ADD `reply_to` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `thread_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `sender_name` text;--> statement-breakpoint
CREATE INDEX `messages_thread` ON `messages` (`thread_id`,`seq`);--> statement-breakpoint
ALTER TABLE `purged` ADD `thread_id` text;