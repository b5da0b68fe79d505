CREATE TABLE "pix_api_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"secret_set_at" timestamp(3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pix_api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"account_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"scopes" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"expires_at" timestamp(3) with time zone NOT NULL,
	"revoked_at" timestamp(3) with time zone
);
--> statement-breakpoint
CREATE TABLE "pix_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key" text NOT NULL,
	"key_type" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"removed_at" timestamp(3) with time zone,
	CONSTRAINT "pix_keys_key_type_ck" CHECK ("pix_keys"."key_type" IN ('EVP', 'EMAIL', 'PHONE', 'CPF', 'CNPJ'))
);
--> statement-breakpoint
ALTER TABLE "audit_trail" DROP CONSTRAINT "audit_trail_action_ck";--> statement-breakpoint
ALTER TABLE "pix_api_clients" ADD CONSTRAINT "pix_api_clients_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_api_tokens" ADD CONSTRAINT "pix_api_tokens_client_id_pix_api_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."pix_api_clients"("client_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_api_tokens" ADD CONSTRAINT "pix_api_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_keys" ADD CONSTRAINT "pix_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pix_api_clients_account_uq" ON "pix_api_clients" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pix_api_tokens_hash_uq" ON "pix_api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "pix_api_tokens_client_idx" ON "pix_api_tokens" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pix_keys_live_key_uq" ON "pix_keys" USING btree ("key") WHERE "pix_keys"."removed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "pix_keys_account_idx" ON "pix_keys" USING btree ("account_id","created_at");--> statement-breakpoint
ALTER TABLE "audit_trail" ADD CONSTRAINT "audit_trail_action_ck" CHECK ("audit_trail"."action" IN ('session.sign_in', 'session.sign_out_everywhere', 'password.change', 'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate', 'pix_client_secret.rotate'));