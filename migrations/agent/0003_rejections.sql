CREATE TABLE `rejections` (
	`reason` text NOT NULL,
	`address` text NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`reason`, `address`)
);
--> statement-breakpoint
CREATE INDEX `rejections_last` ON `rejections` (`last_at`);