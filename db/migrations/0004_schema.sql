DROP INDEX `customers_account_email_idx`;--> statement-breakpoint
DROP INDEX `customers_account_document_idx`;--> statement-breakpoint
CREATE INDEX `customers_account_email_idx` ON `customers` (`account_id`,`email_search`,`created_at`);--> statement-breakpoint
CREATE INDEX `customers_account_document_idx` ON `customers` (`account_id`,`document`,`created_at`);