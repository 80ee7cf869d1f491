CREATE TABLE `channel` (
	`id` integer PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text,
	`created_at` integer NOT NULL,
	`last_seq` integer DEFAULT 0 NOT NULL,
	`last_created_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dedup` (
	`sender_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dedup_seq` ON `dedup` (`seq`);--> statement-breakpoint
CREATE TABLE `deliveries` (
	`seq` integer NOT NULL,
	`recipient_id` text NOT NULL,
	`state` text NOT NULL,
	`claim_hash` text,
	`claim_expires_at` integer,
	`replaced_hashes` text DEFAULT '[]' NOT NULL,
	`ack_hash` text,
	`ack_deadline` integer,
	PRIMARY KEY(`seq`, `recipient_id`)
);
--> statement-breakpoint
CREATE INDEX `deliveries_recipient` ON `deliveries` (`recipient_id`,`state`,`seq`);--> statement-breakpoint
CREATE TABLE `messages` (
	`seq` integer PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`sender_id` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`attachment` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_message_id_unique` ON `messages` (`message_id`);--> statement-breakpoint
CREATE TABLE `notify_outbox` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`pending` integer NOT NULL,
	`last_message_at` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text
);
--> statement-breakpoint
CREATE TABLE `participants` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`since` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `purged` (
	`message_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`purged_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `purged_seq` ON `purged` (`seq`);