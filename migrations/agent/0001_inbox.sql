CREATE TABLE `channels` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`peer_agent_id` text,
	`group_id` text,
	`name` text,
	`last_message_at` integer,
	`pending` integer NOT NULL,
	`gen` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `channels_pending` ON `channels` (`pending`,`kind`);