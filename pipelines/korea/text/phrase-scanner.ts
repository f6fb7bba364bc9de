/**
 * Longest-match phrase scanning over Korean text with a character trie: the one matcher behind the
 * sentiment, keyword, entity and topic tables. Hundreds of articles against hundreds of phrases
 * per run, so no regex alternation (which retries every phrase at every position).
 */

export interface Phrase<T> {
  /** As written in the table; a space matches any run of whitespace or none (김치 프리미엄 = 김치프리미엄). */
  text: string;
  value: T;
}

export interface PhraseHit<T> {
  start: number;
  end: number;
  /** The table's phrase (not the text's spelling). */
  phrase: string;
  value: T;
}

interface TrieNode<T> {
  next: Map<string, TrieNode<T>>;
  phrase?: Phrase<T>;
}

const isLatin = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z]/.test(ch);
const isDigit = (ch: string | undefined): boolean => ch !== undefined && /[0-9]/.test(ch);
const isSpace = (ch: string | undefined): boolean => ch !== undefined && /\s/.test(ch);

/**
 * Finds table phrases in a text, left to right, without overlaps: at each position the longest
 * phrase wins (상장폐지 over 상장), and a hit resumes the scan after itself (so 급락 never lends its
 * 락 to another phrase). Latin edges need a boundary (SM is not in SMS, DDR5 is not in LPDDR5, but
 * HBM is in HBM4); a phrase starting with a digit is not read inside a longer figure (1위 in 11위).
 * Matching is case-sensitive: tables list the casings they accept.
 */
export class PhraseScanner<T> {
  private readonly root: TrieNode<T> = { next: new Map() };

  constructor(phrases: readonly Phrase<T>[]) {
    for (const phrase of phrases) {
      const text = phrase.text.trim().replace(/\s+/g, ' ');
      if (!text) throw new Error('PhraseScanner: empty phrase in table');
      let node = this.root;
      for (const ch of text) {
        let child = node.next.get(ch);
        if (!child) {
          child = { next: new Map() };
          node.next.set(ch, child);
        }
        node = child;
      }
      // First entry wins when a table lists a phrase twice.
      node.phrase ??= { text, value: phrase.value };
    }
  }

  /** Every hit in `text`, in order. */
  scan(text: string): PhraseHit<T>[] {
    const hits: PhraseHit<T>[] = [];
    let i = 0;
    while (i < text.length) {
      const hit = this.longestAt(text, i);
      if (hit) {
        hits.push(hit);
        i = hit.end;
      } else {
        i++;
      }
    }
    return hits;
  }

  private longestAt(text: string, start: number): PhraseHit<T> | null {
    const first = this.root.next.get(text[start]!);
    if (!first) return null;
    let best: PhraseHit<T> | null = null;
    // Depth-first over the trie; a space edge may consume whitespace or nothing.
    const stack: [TrieNode<T>, number][] = [[first, start + 1]];
    while (stack.length > 0) {
      const [node, pos] = stack.pop()!;
      if (node.phrase && (best === null || pos > best.end) && this.bounded(text, start, pos, node.phrase.text)) {
        best = { start, end: pos, phrase: node.phrase.text, value: node.phrase.value };
      }
      const space = node.next.get(' ');
      if (space) {
        let after = pos;
        while (isSpace(text[after])) after++;
        stack.push([space, after]);
      }
      const ch = text[pos];
      if (ch !== undefined && ch !== ' ') {
        const child = node.next.get(ch);
        if (child) stack.push([child, pos + 1]);
      }
    }
    return best;
  }

  private bounded(text: string, start: number, end: number, phrase: string): boolean {
    const head = phrase[0];
    const tail = phrase[phrase.length - 1];
    const before = text[start - 1];
    const after = text[end];
    if (isLatin(head) && isLatin(before)) return false;
    if (isDigit(head) && (isDigit(before) || isLatin(before) || before === '.' || before === ',')) return false;
    if (isLatin(tail) && isLatin(after)) return false;
    if (isDigit(tail) && isDigit(after)) return false;
    return true;
  }
}
