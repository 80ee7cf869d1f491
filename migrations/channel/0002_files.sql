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
CREATE TABLE `files` (
	`seq` integer PRIMARY KEY NOT NULL,
	`file_id` text NOT NULL,
	`object_key` text NOT NULL,
	`size` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `files_file_id_unique` ON `files` (`file_id`);--> statement-breakpoint
CREATE TABLE `pending_objects` (
	`object_key` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `retention_catalog` (
	`id` integer PRIMARY KEY NOT NULL,
	`registered_at` integer NOT NULL
);
