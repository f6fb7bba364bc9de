import { describe, expect, it } from 'vitest';
import { PhraseScanner } from './phrase-scanner.ts';

const scanner = new PhraseScanner<string>([
  { text: '상장', value: 'listing' },
  { text: '상장폐지', value: 'delisting' },
  { text: '김치 프리미엄', value: 'kimchi premium' },
  { text: 'SM', value: 'SM' },
  { text: 'HBM', value: 'HBM' },
  { text: '1위', value: 'first' },
  { text: '락', value: 'lock' },
  { text: '급락', value: 'plunge' },
]);
const found = (text: string): string[] => scanner.scan(text).map((h) => `${h.value}@${h.start}-${h.end}`);

describe('PhraseScanner', () => {
  it('takes the longest phrase at a position and resumes after it', () => {
    expect(found('상장폐지')).toEqual(['delisting@0-4']);
    expect(found('급락')).toEqual(['plunge@0-2']);
    expect(found('상장 후 급락')).toEqual(['listing@0-2', 'plunge@5-7']);
  });

  it('lets a space in a phrase match any whitespace or none', () => {
    expect(found('김치 프리미엄')).toEqual(['kimchi premium@0-7']);
    expect(found('김치프리미엄')).toEqual(['kimchi premium@0-6']);
    expect(found('김치\n  프리미엄')).toEqual(['kimchi premium@0-9']);
    expect(found('상 장')).toEqual([]);
  });

  it('needs Latin and digit boundaries', () => {
    expect(found('SMS')).toEqual([]);
    expect(found('SM엔터')).toEqual(['SM@0-2']);
    expect(found('HBM4')).toEqual(['HBM@0-3']);
    expect(found('11위 1위')).toEqual(['first@4-6']);
  });

  it('rejects an empty phrase', () => {
    expect(() => new PhraseScanner([{ text: ' ', value: 1 }])).toThrow(/empty phrase/);
  });
});
