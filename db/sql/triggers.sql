-- The ledger is append-only: corrections are new entries, never edits.
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_lines_no_update BEFORE UPDATE ON ledger_lines
BEGIN SELECT RAISE(ABORT, 'ledger_lines is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_lines_no_delete BEFORE DELETE ON ledger_lines
BEGIN SELECT RAISE(ABORT, 'ledger_lines is append-only'); END;
--> statement-breakpoint
-- The running balance moves with every line, in the same statement, so it always equals the sum of
-- the book's lines; the CHECK on ledger_books and this trigger then refuse any line that would overdraw
-- a merchant, and this trigger refuses money arriving across the ceiling. `available` may go below zero through a dispute hold and no other way (docs/decisions.md
-- "Disputes"): a debit that leaves it negative is refused unless its entry is a dispute hold, while a
-- credit is always welcome (it covers the shortfall first, being added to the running balance).
CREATE TRIGGER ledger_lines_apply AFTER INSERT ON ledger_lines
BEGIN
  UPDATE ledger_books SET balance = balance + NEW.amount, last_line_id = NEW.id, updated_at = NEW.created_at WHERE id = NEW.book_id;
  SELECT RAISE(ABORT, 'ledger line names an unknown book') WHERE changes() = 0;
  SELECT RAISE(ABORT, 'ledger_books_balance_non_negative: only a dispute hold may take available below zero')
  FROM ledger_books b
  WHERE b.id = NEW.book_id AND b.kind = 'available' AND b.allow_negative = 0 AND b.balance < 0 AND NEW.amount < 0
    AND (SELECT e.kind FROM ledger_entries e WHERE e.id = NEW.entry_id) IS NOT 'dispute_hold';
  -- The ceiling (docs/decisions.md "Money") refuses money ARRIVING from outside the merchant's books: a sandbox
  -- top-up or an approved charge (BALANCE_CEILING_ENTRY_KINDS in db/schema/ledger.ts). Returns (a failed
  -- batch or refund), a won dispute's release and a dispute hold only move the merchant's own money
  -- between its books: refusing them would strand money in flight and drop a dispute, so they always pass.
  SELECT RAISE(ABORT, 'ledger_books_balance_ceiling: money arriving may not take a balance above the ceiling')
  FROM ledger_books b
  WHERE b.id = NEW.book_id AND b.account_id IS NOT NULL AND NEW.amount > 0 AND b.balance > 10000000000000
    AND (SELECT e.kind FROM ledger_entries e WHERE e.id = NEW.entry_id) IN ('sandbox_topup', 'transaction_credit');
END;
--> statement-breakpoint
-- A balance is the sum of its book's lines and nothing else: it moves only by the amount of a new line
-- of that book (so the rules above cannot be side-stepped by writing a balance directly).
CREATE TRIGGER ledger_books_balance_from_lines BEFORE UPDATE OF balance, last_line_id ON ledger_books
WHEN NEW.balance IS NOT OLD.balance OR NEW.last_line_id IS NOT OLD.last_line_id
BEGIN
  SELECT RAISE(ABORT, 'a book balance moves only with a new ledger line of that book')
  WHERE NEW.last_line_id <= OLD.last_line_id
     OR NEW.balance IS NOT OLD.balance + (SELECT l.amount FROM ledger_lines l WHERE l.id = NEW.last_line_id AND l.book_id = NEW.id);
END;
--> statement-breakpoint
-- Events are history too.
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events is append-only'); END;
--> statement-breakpoint
-- A line states the book's balance after it and is never dated before the book's previous line, so a
-- book's lines in (created_at, id) order form an exact running statement.
CREATE TRIGGER ledger_lines_check_running BEFORE INSERT ON ledger_lines
BEGIN
  SELECT RAISE(ABORT, 'ledger line names an unknown book') WHERE NOT EXISTS (SELECT 1 FROM ledger_books WHERE id = NEW.book_id);
  SELECT RAISE(ABORT, 'ledger line balance_after must be the book balance plus its amount')
    WHERE NEW.balance_after IS NOT (SELECT balance + NEW.amount FROM ledger_books WHERE id = NEW.book_id);
  SELECT RAISE(ABORT, 'ledger line dated before the book''s previous line')
    WHERE NEW.created_at < (SELECT updated_at FROM ledger_books WHERE id = NEW.book_id);
END;
--> statement-breakpoint
-- Refunds: only of an APPROVED transaction of the same account, never while a dispute is open or lost,
-- created PENDING; the transaction's refunded_amount follows them (its CHECK caps it at the amount).
CREATE TRIGGER refunds_check_insert BEFORE INSERT ON refunds
BEGIN
  SELECT RAISE(ABORT, 'refund of a transaction that is not APPROVED')
    WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE id = NEW.transaction_id AND account_id = NEW.account_id AND status = 'APPROVED');
  SELECT RAISE(ABORT, 'refund of a transaction with an open or lost dispute')
    WHERE EXISTS (SELECT 1 FROM disputes WHERE transaction_id = NEW.transaction_id AND status IN ('OPEN', 'LOST'));
  SELECT RAISE(ABORT, 'a refund starts PENDING') WHERE NEW.status <> 'PENDING';
END;
--> statement-breakpoint
CREATE TRIGGER refunds_apply AFTER INSERT ON refunds
BEGIN
  UPDATE transactions SET refunded_amount = refunded_amount + NEW.amount WHERE id = NEW.transaction_id;
END;
--> statement-breakpoint
-- A refund settles once (PENDING → PAID | ERROR) and keeps its amount and charge; a failed one no
-- longer counts as refunded.
CREATE TRIGGER refunds_check_update BEFORE UPDATE ON refunds
BEGIN
  SELECT RAISE(ABORT, 'a refund keeps its amount, charge and account')
    WHERE NEW.amount <> OLD.amount OR NEW.transaction_id <> OLD.transaction_id OR NEW.account_id <> OLD.account_id;
  SELECT RAISE(ABORT, 'a refund settles once, from PENDING')
    WHERE NEW.status <> OLD.status AND OLD.status <> 'PENDING';
END;
--> statement-breakpoint
CREATE TRIGGER refunds_failed AFTER UPDATE OF status ON refunds
WHEN OLD.status = 'PENDING' AND NEW.status = 'ERROR'
BEGIN
  UPDATE transactions SET refunded_amount = refunded_amount - NEW.amount WHERE id = NEW.transaction_id;
  -- A dispute opened while this refund was pending held total minus refunds counting it; the amount it
  -- no longer gives back joins the hold (an open dispute) or the chargeback (a lost one), so refunds and
  -- the hold still make the total. The domain posts the matching ledger entry in the same job.
  UPDATE disputes SET amount = amount + NEW.amount, updated_at = NEW.updated_at
  WHERE transaction_id = NEW.transaction_id AND status IN ('OPEN', 'LOST');
END;
--> statement-breakpoint
CREATE TRIGGER refunds_no_delete BEFORE DELETE ON refunds
BEGIN SELECT RAISE(ABORT, 'refunds are history'); END;
--> statement-breakpoint
-- A dispute holds at most what is left after refunds: refunds and the hold never exceed the total.
CREATE TRIGGER disputes_check_insert BEFORE INSERT ON disputes
BEGIN
  SELECT RAISE(ABORT, 'dispute hold exceeds the transaction total minus its refunds')
    WHERE NEW.amount > (SELECT amount - refunded_amount FROM transactions WHERE id = NEW.transaction_id);
END;
--> statement-breakpoint
-- A dispute keeps its charge and account, and its amount only grows, never past total minus refunds.
CREATE TRIGGER disputes_check_update BEFORE UPDATE ON disputes
BEGIN
  SELECT RAISE(ABORT, 'a dispute keeps its charge and account')
    WHERE NEW.transaction_id <> OLD.transaction_id OR NEW.account_id <> OLD.account_id;
  SELECT RAISE(ABORT, 'dispute hold exceeds the transaction total minus its refunds')
    WHERE NEW.amount <> OLD.amount AND (NEW.amount < OLD.amount
      OR NEW.amount > (SELECT amount - refunded_amount FROM transactions WHERE id = NEW.transaction_id));
END;
--> statement-breakpoint
-- The word search of names (name_words, db/schema/search.ts): each word of a charge's customer name or a
-- withdrawal's recipient name, filed under its first three letters, one row per owner and stem. Names
-- are written once, with their charge or withdrawal, so an insert is the only moment to catch.
CREATE TRIGGER transactions_name_words AFTER INSERT ON transactions
BEGIN
  INSERT INTO name_words (account_id, subject, stem, created_at, owner_id, words)
  SELECT NEW.account_id, 'transaction', substr(w.value, 1, 3), NEW.created_at, NEW.id, ',' || group_concat(DISTINCT w.value)
  FROM customers c, json_each(c.name_words) w
  WHERE c.id = NEW.customer_id AND w.value <> ''
  GROUP BY substr(w.value, 1, 3);
END;
--> statement-breakpoint
CREATE TRIGGER withdrawals_name_words AFTER INSERT ON withdrawals
BEGIN
  INSERT INTO name_words (account_id, subject, stem, created_at, owner_id, words)
  SELECT NEW.account_id, 'withdrawal', substr(w.value, 1, 3), NEW.created_at, NEW.id, ',' || group_concat(DISTINCT w.value)
  FROM json_each(NEW.details_name_words) w
  WHERE w.value <> ''
  GROUP BY substr(w.value, 1, 3);
END;
--> statement-breakpoint
-- A transaction is credited once (docs/decisions.md "Transactions", "Engines"): a second `transaction_credit`
-- entry for the same charge breaks this index, whatever the code above it does (as on PostgreSQL).
CREATE UNIQUE INDEX ledger_entries_one_credit_uq ON ledger_entries (resource_id) WHERE kind = 'transaction_credit';
--> statement-breakpoint
-- Since migration 0005 (system books sharded: contract/ledger.ts SYSTEM_BOOK_SHARDS):
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
