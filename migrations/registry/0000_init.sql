CREATE TABLE `admin_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `admins` (
	`username` text PRIMARY KEY NOT NULL,
	`password_hash` text NOT NULL,
	`salt` text NOT NULL,
	`iterations` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `agent_sync` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text
);
--> statement-breakpoint
CREATE TABLE `agents` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`display_name` text NOT NULL,
	`host_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`key_hash` text,
	`created_at` text NOT NULL,
	`last_access_at` text,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`host_id`) REFERENCES `hosts`(`host_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_host_name` ON `agents` (`host_id`,`name`);--> statement-breakpoint
CREATE INDEX `agents_name` ON `agents` (`name`);--> statement-breakpoint
CREATE TABLE `hosts` (
	`host_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`addresses` text NOT NULL,
	`os` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hosts_name_unique` ON `hosts` (`name`);--> statement-breakpoint
CREATE TABLE `login_failures` (
	`scope` text NOT NULL,
	`subject` text NOT NULL,
	`failures` integer NOT NULL,
	`window_start` integer NOT NULL,
	PRIMARY KEY(`scope`, `subject`)
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`limits` text NOT NULL,
	`revision` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `setup_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
