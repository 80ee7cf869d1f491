ALTER TABLE `upload_leases` ADD `agent_id` text;--> statement-breakpoint
CREATE INDEX `upload_leases_agent` ON `upload_leases` (`agent_id`);