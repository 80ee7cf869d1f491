CREATE TABLE `group_memberships` (
	`group_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`version` integer NOT NULL,
	`last_gen` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `group_memberships_state` ON `group_memberships` (`state`);