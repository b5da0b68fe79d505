-- System books are sharded (contract/ledger.ts SYSTEM_BOOK_SHARDS): no row is written by every merchant's movement.
ALTER TABLE `ledger_books` ADD `shard` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A database of an earlier release holds one row per system book (two only if two first uses raced): the
-- first becomes shard 0 and keeps its balance and lines, a twin a further shard, so no money moves and
-- the index below can be built. The new shards open at zero as movements first reach them.
UPDATE `ledger_books` SET `shard` = (
  SELECT count(*) FROM `ledger_books` o WHERE o.`account_id` IS NULL AND o.`kind` = `ledger_books`.`kind` AND o.`id` < `ledger_books`.`id`)
WHERE `account_id` IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_books_system_shard_uq` ON `ledger_books` (`kind`,`shard`) WHERE "ledger_books"."account_id" IS NULL;--> statement-breakpoint
-- A book opens empty (its balance is the sum of its lines, and it has none yet: a shard opened with a
-- balance would be money from nowhere), and only a system book has shards.
CREATE TRIGGER ledger_books_open_at_zero BEFORE INSERT ON ledger_books
BEGIN
  SELECT RAISE(ABORT, 'a book opens at a zero balance, before any line') WHERE NEW.balance <> 0 OR NEW.last_line_id <> 0;
  SELECT RAISE(ABORT, 'only a system book has shards') WHERE NEW.shard < 0 OR (NEW.account_id IS NOT NULL AND NEW.shard <> 0);
END;--> statement-breakpoint
-- A book keeps its account, kind and shard: its lines were written to that book.
CREATE TRIGGER ledger_books_keep_identity BEFORE UPDATE OF account_id, kind, shard ON ledger_books
WHEN NEW.account_id IS NOT OLD.account_id OR NEW.kind IS NOT OLD.kind OR NEW.shard IS NOT OLD.shard
BEGIN SELECT RAISE(ABORT, 'a book keeps its account, kind and shard'); END;
