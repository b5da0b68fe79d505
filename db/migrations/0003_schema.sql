CREATE TABLE `audit_trail` (
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
	CONSTRAINT "audit_trail_action_ck" CHECK("audit_trail"."action" IN ('session.sign_in', 'session.sign_out_everywhere', 'password.change', 'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `audit_trail_account_idx` ON `audit_trail` (`account_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `client_address` text;--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `user_agent` text;--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `last_seen_at` text;--> statement-breakpoint
CREATE INDEX `dashboard_sessions_user_idx` ON `dashboard_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_account_idx` ON `dashboard_sessions` (`account_id`);