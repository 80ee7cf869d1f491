CREATE TABLE `channel_health` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`pending` integer NOT NULL,
	`failed` integer NOT NULL,
	`last_error` text,
	`next_poll_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `channels` (
	`n` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel_id` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channels_channel_id_unique` ON `channels` (`channel_id`);--> statement-breakpoint
CREATE TABLE `cleanup_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`active` integer DEFAULT false NOT NULL,
	`cursor` integer DEFAULT 0 NOT NULL,
	`channels_done` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`next_run_at` integer,
	`started_at` integer,
	`last_completed_at` integer,
	`seen_revision` integer DEFAULT 0 NOT NULL,
	`check_settings_at` integer,
	`sweep_at` integer
);
--> statement-breakpoint
CREATE TABLE `deletion_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`object_key` text NOT NULL,
	`upload_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `upload_leases` (
	`lease_id` text PRIMARY KEY NOT NULL,
	`object_key` text NOT NULL,
	`upload_id` text,
	`reserved_bytes` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `upload_leases_object_key_unique` ON `upload_leases` (`object_key`);