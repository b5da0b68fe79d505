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
-- the book's lines; the CHECKs on ledger_books then refuse any line that would overdraw a merchant or
-- cross the ceiling. `available` may go below zero through a dispute hold and no other way (DECISIONS
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
