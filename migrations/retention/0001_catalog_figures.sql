ALTER TABLE `channels` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `channels` ADD `message_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `channels` ADD `file_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `channels` ADD `last_message_at` integer;--> statement-breakpoint
ALTER TABLE `channels` ADD `version` integer DEFAULT 0 NOT NULL;