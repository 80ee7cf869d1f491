ALTER TABLE `agents` ADD `key_prefix` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `key_issued_at` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `key_revoked_at` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `last_access_address` text;