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
-- the book's lines; the CHECK on ledger_books then refuses any line that would overdraw a merchant.
CREATE TRIGGER ledger_lines_apply AFTER INSERT ON ledger_lines
BEGIN
  UPDATE ledger_books SET balance = balance + NEW.amount, updated_at = NEW.created_at WHERE id = NEW.book_id;
  SELECT RAISE(ABORT, 'ledger line names an unknown book') WHERE changes() = 0;
END;
--> statement-breakpoint
-- Events are history too.
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events is append-only'); END;
