CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`admin` text,
	`action` text NOT NULL,
	`targets` text NOT NULL,
	`client_address` text NOT NULL,
	`outcome` text NOT NULL,
	`request_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_log_admin` ON `audit_log` (`admin`,`id`);--> statement-breakpoint
ALTER TABLE `admin_sessions` ADD `client_address` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `admin_sessions` ADD `user_agent` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `admins` ADD `disabled` integer DEFAULT false NOT NULL;