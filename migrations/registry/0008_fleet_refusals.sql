CREATE TABLE `refusal_counts` (
	`agent_id` text NOT NULL,
	`reason` text NOT NULL,
	`address` text NOT NULL,
	`minute` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `reason`, `address`, `minute`)
);
--> statement-breakpoint
CREATE INDEX `refusal_counts_minute` ON `refusal_counts` (`minute`);--> statement-breakpoint
CREATE TABLE `refusal_totals` (
	`reason` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL
);
