CREATE TABLE `pix_api_clients` (
	`client_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` text NOT NULL,
	`secret_set_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_api_clients_account_uq` ON `pix_api_clients` (`account_id`);--> statement-breakpoint
CREATE TABLE `pix_api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`account_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`client_id`) REFERENCES `pix_api_clients`(`client_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_api_tokens_hash_uq` ON `pix_api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `pix_api_tokens_client_idx` ON `pix_api_tokens` (`client_id`);--> statement-breakpoint
CREATE TABLE `pix_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`key` text NOT NULL,
	`key_type` text NOT NULL,
	`created_at` text NOT NULL,
	`removed_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "pix_keys_key_type_ck" CHECK("pix_keys"."key_type" IN ('EVP', 'EMAIL', 'PHONE', 'CPF', 'CNPJ'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_keys_live_key_uq` ON `pix_keys` (`key`) WHERE "pix_keys"."removed_at" IS NULL;--> statement-breakpoint
CREATE INDEX `pix_keys_account_idx` ON `pix_keys` (`account_id`,`created_at`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_audit_trail` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`user_id` text,
	`actor_email` text NOT NULL,
	`action` text NOT NULL,
	`subject` text,
	`client_address` text NOT NULL,
	`user_agent` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `dashboard_users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "audit_trail_action_ck" CHECK("__new_audit_trail"."action" IN ('session.sign_in', 'session.sign_out_everywhere', 'password.change', 'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate', 'pix_client_secret.rotate'))
) STRICT;
--> statement-breakpoint
INSERT INTO `__new_audit_trail`("id", "account_id", "user_id", "actor_email", "action", "subject", "client_address", "user_agent", "created_at") SELECT "id", "account_id", "user_id", "actor_email", "action", "subject", "client_address", "user_agent", "created_at" FROM `audit_trail`;--> statement-breakpoint
DROP TABLE `audit_trail`;--> statement-breakpoint
ALTER TABLE `__new_audit_trail` RENAME TO `audit_trail`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `audit_trail_account_idx` ON `audit_trail` (`account_id`,`created_at`,`id`);