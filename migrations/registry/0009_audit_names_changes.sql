ALTER TABLE `audit_log` ADD `names` text;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `changes` text;