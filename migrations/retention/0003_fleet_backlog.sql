CREATE TABLE `channel_backlog` (
	`channel_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`unread` integer NOT NULL,
	`leased` integer NOT NULL,
	`parked` integer NOT NULL,
	`oldest_unread_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `agent_id`)
);
--> statement-breakpoint
CREATE INDEX `channel_backlog_agent` ON `channel_backlog` (`agent_id`);--> statement-breakpoint
CREATE INDEX `channels_activity` ON `channels` (`status`,`last_message_at`,`n`);--> statement-breakpoint
CREATE INDEX `channels_fullness` ON `channels` (`status`,`message_count`,`file_count`,`n`);