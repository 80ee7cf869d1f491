ALTER TABLE `channel` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `channel` ADD `membership_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `channel` ADD `catalog_version` integer DEFAULT 0 NOT NULL;