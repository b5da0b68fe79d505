CREATE TABLE "audit_trail" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"subject" text,
	"client_address" text NOT NULL,
	"user_agent" text,
	"created_at" timestamp(3) with time zone NOT NULL,
	CONSTRAINT "audit_trail_action_ck" CHECK ("audit_trail"."action" IN ('session.sign_in', 'session.sign_out_everywhere', 'password.change', 'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate'))
);
--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "client_address" text;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "last_seen_at" timestamp(3) with time zone;--> statement-breakpoint
ALTER TABLE "audit_trail" ADD CONSTRAINT "audit_trail_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_trail" ADD CONSTRAINT "audit_trail_user_id_dashboard_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."dashboard_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_trail_account_idx" ON "audit_trail" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "dashboard_sessions_user_idx" ON "dashboard_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "dashboard_sessions_account_idx" ON "dashboard_sessions" USING btree ("account_id");