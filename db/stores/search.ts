import type { DrizzleDb } from '../handle';
import { sampleStemWalk, stemWalkFloor, type StemWalk } from '../name-words';

export type { StemWalk } from '../name-words';

/** Bounded looks into name_words for the dashboard's word search (db/name-words.ts has the SQL). */
export class SearchStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * The first `size` rows of a stem's walk: how many there are and how many hold a word beginning
   * with `word` (fewer than `size` examined: the stem's whole answer).
   */
  sampleStemWalk(walk: StemWalk, word: string, size: number): Promise<{ examined: number; matched: number }> {
    return sampleStemWalk(this.db, walk, word, size);
  }

  /** The `cap`-th row of a stem's walk, where a bounded walk stops; null when it has fewer rows. */
  stemWalkFloor(walk: StemWalk, cap: number): Promise<{ createdAt: string; id: string } | null> {
    return stemWalkFloor(this.db, walk, cap);
  }
}
