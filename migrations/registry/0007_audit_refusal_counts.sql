ALTER TABLE `audit_log` ADD `count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `last_at` integer;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `agg_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `audit_log_agg_key` ON `audit_log` (`agg_key`);