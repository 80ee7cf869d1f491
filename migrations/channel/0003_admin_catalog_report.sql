CREATE TABLE `catalog_report` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`confirmed_version` integer DEFAULT 0 NOT NULL,
	`confirmed` text
);
