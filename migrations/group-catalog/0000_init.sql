CREATE TABLE `group_members` (
	`group_id` text NOT NULL,
	`agent_id` text NOT NULL,
	PRIMARY KEY(`group_id`, `agent_id`)
);
--> statement-breakpoint
CREATE INDEX `group_members_agent` ON `group_members` (`agent_id`);--> statement-breakpoint
CREATE TABLE `groups` (
	`group_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`owner_id` text NOT NULL,
	`status` text NOT NULL,
	`members` text NOT NULL,
	`member_count` integer NOT NULL,
	`pending_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `groups_listing` ON `groups` (`status`,`created_at`,`group_id`);--> statement-breakpoint
CREATE INDEX `groups_owner` ON `groups` (`owner_id`);