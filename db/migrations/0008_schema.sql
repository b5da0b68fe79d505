CREATE TABLE `account_receivers` (
	`account_id` text PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`name` text NOT NULL,
	`trade_name` text,
	`street` text NOT NULL,
	`city` text NOT NULL,
	`uf` text NOT NULL,
	`cep` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "account_receivers_document_ck" CHECK(length("account_receivers"."document") IN (11, 14)),
	CONSTRAINT "account_receivers_uf_ck" CHECK(length("account_receivers"."uf") = 2),
	CONSTRAINT "account_receivers_cep_ck" CHECK(length("account_receivers"."cep") = 8)
) STRICT;
--> statement-breakpoint
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
	CONSTRAINT "audit_trail_action_ck" CHECK("__new_audit_trail"."action" IN ('session.sign_in', 'session.sign_out_everywhere', 'password.change', 'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate', 'pix_client_secret.rotate', 'receiver.update'))
) STRICT;
--> statement-breakpoint
INSERT INTO `__new_audit_trail`("id", "account_id", "user_id", "actor_email", "action", "subject", "client_address", "user_agent", "created_at") SELECT "id", "account_id", "user_id", "actor_email", "action", "subject", "client_address", "user_agent", "created_at" FROM `audit_trail`;--> statement-breakpoint
DROP TABLE `audit_trail`;--> statement-breakpoint
ALTER TABLE `__new_audit_trail` RENAME TO `audit_trail`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `audit_trail_account_idx` ON `audit_trail` (`account_id`,`created_at`,`id`);