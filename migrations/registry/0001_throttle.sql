CREATE TABLE `admin_known_addresses` (
	`username` text NOT NULL,
	`address_key` text NOT NULL,
	`last_success_at` integer NOT NULL,
	PRIMARY KEY(`username`, `address_key`)
);
--> statement-breakpoint
ALTER TABLE `login_failures` ADD `last_failure_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `login_failures_last` ON `login_failures` (`last_failure_at`);