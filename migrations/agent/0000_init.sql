CREATE TABLE `account` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`display_name` text NOT NULL,
	`host_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`key_hash` text,
	`addresses` text NOT NULL,
	`version` integer NOT NULL
);
