ALTER TABLE `deliveries` ADD `delivery_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `deliveries` SET `delivery_count` = 1 WHERE `state` = 'leased';
