CREATE TABLE `agent_deletions` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`deleted_at` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text
);
