CREATE TABLE `name_words` (
	`account_id` text NOT NULL,
	`subject` text NOT NULL,
	`stem` text NOT NULL,
	`created_at` text NOT NULL,
	`owner_id` text NOT NULL,
	`words` text NOT NULL,
	PRIMARY KEY(`owner_id`, `stem`)
) STRICT;
--> statement-breakpoint
CREATE INDEX `name_words_search_idx` ON `name_words` (`account_id`,`subject`,`stem`,`created_at`,`owner_id`,`words`);--> statement-breakpoint
CREATE TABLE `access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `access_tokens_hash_uq` ON `access_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `access_tokens_account_idx` ON `access_tokens` (`account_id`);--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`code` text NOT NULL,
	`token_hash` text NOT NULL,
	`api_key` text NOT NULL,
	`postback_secret_enc` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_code_uq` ON `accounts` (`code`);--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_api_key_uq` ON `accounts` (`api_key`);--> statement-breakpoint
CREATE TABLE `dashboard_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `dashboard_users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_sessions_hash_uq` ON `dashboard_sessions` (`token_hash`);--> statement-breakpoint
CREATE TABLE `dashboard_users` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`locale` text DEFAULT 'pt-BR' NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "dashboard_users_locale_ck" CHECK("dashboard_users"."locale" IN ('pt-BR', 'en'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_users_email_uq` ON `dashboard_users` (`email`);--> statement-breakpoint
CREATE TABLE `ledger_books` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text,
	`kind` text NOT NULL,
	`allow_negative` integer DEFAULT 0 NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`last_line_id` integer DEFAULT 0 NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "ledger_books_balance_non_negative" CHECK("ledger_books"."allow_negative" = 1 OR "ledger_books"."balance" >= 0 OR "ledger_books"."kind" = 'available'),
	CONSTRAINT "ledger_books_allow_negative_bool" CHECK("ledger_books"."allow_negative" IN (0, 1))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_books_account_kind_uq` ON `ledger_books` (`account_id`,`kind`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`resource_id` text,
	`description` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE INDEX `ledger_entries_account_idx` ON `ledger_entries` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_entries_resource_idx` ON `ledger_entries` (`resource_id`);--> statement-breakpoint
CREATE TABLE `ledger_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entry_id` text NOT NULL,
	`book_id` text NOT NULL,
	`amount` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `ledger_entries`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`book_id`) REFERENCES `ledger_books`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "ledger_lines_amount_bounds" CHECK("ledger_lines"."amount" <> 0 AND "ledger_lines"."amount" BETWEEN -100000000000 AND 100000000000)
) STRICT;
--> statement-breakpoint
CREATE INDEX `ledger_lines_entry_idx` ON `ledger_lines` (`entry_id`);--> statement-breakpoint
CREATE INDEX `ledger_lines_book_created_idx` ON `ledger_lines` (`book_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`category` text NOT NULL,
	`resource_id` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	`dispatched_at` text,
	`request_id` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_unique` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_account_idx` ON `events` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_undispatched_idx` ON `events` (`dispatched_at`,`seq`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`account_id` text NOT NULL,
	`operation` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`result` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`account_id`, `operation`, `key`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `withdrawal_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`withdrawal_id` text NOT NULL,
	`account_id` text NOT NULL,
	`seq` integer NOT NULL,
	`amount` integer NOT NULL,
	`status` text NOT NULL,
	`due_at` text NOT NULL,
	`claimed_by` text,
	`end_to_end` text,
	`receiver_name` text,
	`receiver_bank` text,
	`receiver_bank_ispb` text,
	`failure_code` text,
	`failure_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`withdrawal_id`) REFERENCES `withdrawals`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "withdrawal_batches_amount_bounds" CHECK("withdrawal_batches"."amount" BETWEEN 1 AND 100000000000)
) STRICT;
--> statement-breakpoint
CREATE INDEX `withdrawal_batches_withdrawal_idx` ON `withdrawal_batches` (`withdrawal_id`,`seq`);--> statement-breakpoint
CREATE INDEX `withdrawal_batches_due_idx` ON `withdrawal_batches` (`status`,`due_at`);--> statement-breakpoint
CREATE INDEX `withdrawal_batches_end_to_end_idx` ON `withdrawal_batches` (`end_to_end`);--> statement-breakpoint
CREATE TABLE `withdrawals` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`key` text NOT NULL,
	`key_type` text NOT NULL,
	`description` text,
	`details_name` text NOT NULL,
	`details_document` text NOT NULL,
	`postback` text,
	`external_ref` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`details_name_search` text GENERATED ALWAYS AS (replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(trim("details_name")), 'á', 'a'), 'à', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'Á', 'a'), 'À', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'é', 'e'), 'è', 'e'), 'ê', 'e'), 'ë', 'e'), 'É', 'e'), 'È', 'e'), 'Ê', 'e'), 'Ë', 'e'), 'í', 'i'), 'ì', 'i'), 'î', 'i'), 'ï', 'i'), 'Í', 'i'), 'Ì', 'i'), 'Î', 'i'), 'Ï', 'i'), 'ó', 'o'), 'ò', 'o'), 'ô', 'o'), 'õ', 'o'), 'ö', 'o'), 'Ó', 'o'), 'Ò', 'o'), 'Ô', 'o'), 'Õ', 'o'), 'Ö', 'o'), 'ú', 'u'), 'ù', 'u'), 'û', 'u'), 'ü', 'u'), 'Ú', 'u'), 'Ù', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ç', 'c'), 'Ç', 'c'), 'ñ', 'n'), 'Ñ', 'n')) VIRTUAL,
	`details_name_words` text GENERATED ALWAYS AS ('[' || replace(json_quote(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace("details_name_search", '\', ' '), '"', ' '), '-', ' '), '.', ' '), ',', ' '), '''', ' '), '/', ' '), '(', ' '), ')', ' '), char(9), ' '), char(10), ' '), char(13), ' ')), ' ', '","') || ']') VIRTUAL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "withdrawals_amount_bounds" CHECK("withdrawals"."amount" BETWEEN 1 AND 100000000000)
) STRICT;
--> statement-breakpoint
CREATE INDEX `withdrawals_account_amount_created_idx` ON `withdrawals` (`account_id`,`amount`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `withdrawals_account_document_created_idx` ON `withdrawals` (`account_id`,`details_document`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `withdrawals_account_key_created_idx` ON `withdrawals` (`account_id`,`key`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `withdrawals_external_ref_uq` ON `withdrawals` (`account_id`,`external_ref`) WHERE "withdrawals"."external_ref" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `withdrawals_account_created_idx` ON `withdrawals` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `withdrawals_account_status_created_idx` ON `withdrawals` (`account_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`phone` text,
	`document` text NOT NULL,
	`address` text,
	`created_at` text NOT NULL,
	`name_search` text GENERATED ALWAYS AS (replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(trim("name")), 'á', 'a'), 'à', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'Á', 'a'), 'À', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'é', 'e'), 'è', 'e'), 'ê', 'e'), 'ë', 'e'), 'É', 'e'), 'È', 'e'), 'Ê', 'e'), 'Ë', 'e'), 'í', 'i'), 'ì', 'i'), 'î', 'i'), 'ï', 'i'), 'Í', 'i'), 'Ì', 'i'), 'Î', 'i'), 'Ï', 'i'), 'ó', 'o'), 'ò', 'o'), 'ô', 'o'), 'õ', 'o'), 'ö', 'o'), 'Ó', 'o'), 'Ò', 'o'), 'Ô', 'o'), 'Õ', 'o'), 'Ö', 'o'), 'ú', 'u'), 'ù', 'u'), 'û', 'u'), 'ü', 'u'), 'Ú', 'u'), 'Ù', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ç', 'c'), 'Ç', 'c'), 'ñ', 'n'), 'Ñ', 'n')) VIRTUAL,
	`email_search` text GENERATED ALWAYS AS (lower(trim("email"))) VIRTUAL,
	`name_words` text GENERATED ALWAYS AS ('[' || replace(json_quote(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace("name_search", '\', ' '), '"', ' '), '-', ' '), '.', ' '), ',', ' '), '''', ' '), '/', ' '), '(', ' '), ')', ' '), char(9), ' '), char(10), ' '), char(13), ' ')), ' ', '","') || ']') VIRTUAL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE INDEX `customers_account_idx` ON `customers` (`account_id`);--> statement-breakpoint
CREATE INDEX `customers_account_email_idx` ON `customers` (`account_id`,`email_search`);--> statement-breakpoint
CREATE INDEX `customers_account_document_idx` ON `customers` (`account_id`,`document`);--> statement-breakpoint
CREATE TABLE `disputes` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "disputes_amount_bounds" CHECK("disputes"."amount" BETWEEN 1 AND 100000000000)
) STRICT;
--> statement-breakpoint
CREATE INDEX `disputes_transaction_idx` ON `disputes` (`transaction_id`);--> statement-breakpoint
CREATE INDEX `disputes_account_status_created_idx` ON `disputes` (`account_id`,`status`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `disputes_open_uq` ON `disputes` (`transaction_id`) WHERE "disputes"."status" = 'OPEN';--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`amount` integer NOT NULL,
	`reason` text,
	`status` text NOT NULL,
	`due_at` text NOT NULL,
	`claimed_by` text,
	`end_to_end` text,
	`failure_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "refunds_amount_bounds" CHECK("refunds"."amount" BETWEEN 1 AND 100000000000),
	CONSTRAINT "refunds_status" CHECK("refunds"."status" IN ('PENDING', 'PAID', 'ERROR'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `refunds_transaction_idx` ON `refunds` (`transaction_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `refunds_due_idx` ON `refunds` (`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`identifier` text NOT NULL,
	`method` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text DEFAULT 'BRL' NOT NULL,
	`customer_id` text NOT NULL,
	`items` text NOT NULL,
	`qrcode` text,
	`invoice_id` text,
	`invoice_due_date` text,
	`invoice_digitable_line` text,
	`card_brand` text,
	`card_last4` text,
	`card_holder_name` text,
	`installments` integer,
	`end_to_end` text,
	`postback` text,
	`external_ref` text,
	`metadata` text,
	`refused_reason` text,
	`refunded_amount` integer DEFAULT 0 NOT NULL,
	`expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "transactions_amount_bounds" CHECK("transactions"."amount" BETWEEN 1 AND 100000000000),
	CONSTRAINT "transactions_refunded_bounds" CHECK("transactions"."refunded_amount" BETWEEN 0 AND "transactions"."amount"),
	CONSTRAINT "transactions_installments" CHECK("transactions"."installments" IS NULL OR "transactions"."installments" BETWEEN 1 AND 12)
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_identifier_uq` ON `transactions` (`identifier`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_external_ref_uq` ON `transactions` (`account_id`,`external_ref`) WHERE "transactions"."external_ref" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_end_to_end_idx` ON `transactions` (`end_to_end`);--> statement-breakpoint
CREATE INDEX `transactions_account_created_idx` ON `transactions` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_account_status_created_idx` ON `transactions` (`account_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_account_method_created_idx` ON `transactions` (`account_id`,`method`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_account_amount_created_idx` ON `transactions` (`account_id`,`amount`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (`customer_id`);--> statement-breakpoint
CREATE INDEX `transactions_expiry_idx` ON `transactions` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`event_seq` integer NOT NULL,
	`account_id` text NOT NULL,
	`webhook_id` text,
	`target` text NOT NULL,
	`url` text NOT NULL,
	`resource_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`last_status_code` integer,
	`last_error` text,
	`manual` integer DEFAULT 0 NOT NULL,
	`lease_expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "deliveries_manual_bool" CHECK("deliveries"."manual" IN (0, 1)),
	CONSTRAINT "deliveries_attempts_nonneg" CHECK("deliveries"."attempts" >= 0)
) STRICT;
--> statement-breakpoint
CREATE INDEX `deliveries_due_idx` ON `deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `deliveries_order_idx` ON `deliveries` (`url`,`resource_id`,`status`,`event_seq`);--> statement-breakpoint
CREATE INDEX `deliveries_webhook_idx` ON `deliveries` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `deliveries_account_target_idx` ON `deliveries` (`account_id`,`target`,`created_at`);--> statement-breakpoint
CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`attempted_at` text NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`response_excerpt` text,
	`error` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `deliveries`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery_idx` ON `delivery_attempts` (`delivery_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`url` text NOT NULL,
	`secret_enc` text NOT NULL,
	`events` text NOT NULL,
	`active` integer DEFAULT 1 NOT NULL,
	`paused_at` text,
	`previous_secret_enc` text,
	`previous_secret_expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "webhooks_active_bool" CHECK("webhooks"."active" IN (0, 1))
) STRICT;
--> statement-breakpoint
CREATE INDEX `webhooks_account_idx` ON `webhooks` (`account_id`);--> statement-breakpoint
CREATE TABLE `limit_attempts` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`attempts` integer NOT NULL,
	`window_ends_ms` integer NOT NULL,
	PRIMARY KEY(`kind`, `key`)
) STRICT;
--> statement-breakpoint
CREATE TABLE `limit_buckets` (
	`key` text PRIMARY KEY NOT NULL,
	`tat_us` integer NOT NULL
) STRICT;
--> statement-breakpoint
CREATE TABLE `limit_sign_in_delays` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`not_before_ms` integer NOT NULL,
	`last_failure_ms` integer NOT NULL,
	`in_flight` integer NOT NULL,
	`lease_ends_ms` integer NOT NULL
) STRICT;
