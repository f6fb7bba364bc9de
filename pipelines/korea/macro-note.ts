/**
 * The factual note of krw-macro-stress: the deep model (or the rules analyst) says what drives the
 * score, from the score's own figures. It must not give trading advice: an answer that does (buy,
 * sell, should, recommend...) is rejected like a malformed one, and so would a rules note.
 */
import { z } from 'zod';
import { KOREA_RESPONSES } from '../../catalog/korea.ts';
import type { AnalystTask } from '../analyst/index.ts';
import { macroStressNote, type MacroStressFacts } from './rules-analyst.ts';
import { englishAdvice } from './text/english-advice.ts';

const NoteAnswer = z.strictObject({ note: KOREA_RESPONSES.KrwMacroStressBody.shape.note });

/** The problem with a note that gives trading advice, or null. */
export function adviceProblem(note: string): string | null {
  const advice = englishAdvice(note);
  return advice ? `the note gives trading advice ("${advice}"); it must only describe the figures` : null;
}

export const macroNoteTask: AnalystTask<MacroStressFacts, { note: string }> = {
  name: 'krw-macro-note',
  tier: 'deep',
  promptVersion: 1,
  description: 'Record the short factual note on the KRW macro stress score.',
  instructions:
    'Write a short factual note, two to four sentences, on what drives the KRW macro stress score: its level and change, the components that contribute most ' +
    '(with their values and percentiles), the USD/KRW direction, and which components were left out and why. Describe only: no trading or investment advice, ' +
    'no recommendations, no predictions of what anyone should do (never write buy, sell, hold, hedge, should, recommend).',
  output: NoteAnswer,
  facts: (f) => f,
  rules: (f) => ({ note: macroStressNote(f) }),
  verify: (answer) => adviceProblem(answer.note),
  maxTokens: 600,
};
