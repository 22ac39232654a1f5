import { describe, expect, it } from 'vitest';
import { GroundswellError } from 'groundswell';
import { JudgeVerdictError } from '../../src/file-tools/errors.js';
import { parseVerdict } from '../../src/file-tools/parse-verdict.js';

const REASONING = 'I opened tests/judge/run.log and the quoted line matches.\n\n';

describe('parseVerdict accepts the valid forms', () => {
  const valid: Array<{ form: string; text: string; verdict: 'accept' | 'reject'; missing: string }> = [
    { form: 'plain accept with empty missing', text: `${REASONING}VERDICT: accept\nmissing:`, verdict: 'accept', missing: '' },
    { form: 'plain reject with a reason', text: `${REASONING}VERDICT: reject\nmissing: provenance of the numbers`, verdict: 'reject', missing: 'provenance of the numbers' },
    { form: 'lower case keywords, upper case word', text: 'verdict: ACCEPT\nMissing: ', verdict: 'accept', missing: '' },
    { form: 'surrounding whitespace and blank lines', text: '\n  VERDICT :   reject  \n\n   missing:   a saved test log   \n\n', verdict: 'reject', missing: 'a saved test log' },
    { form: 'bold keyword', text: '**VERDICT:** accept\n**missing:**', verdict: 'accept', missing: '' },
    { form: 'bold keyword with the colon outside', text: '**VERDICT**: reject\n**missing**: the verify output', verdict: 'reject', missing: 'the verify output' },
    { form: 'whole line bold', text: '**VERDICT: reject**\n**missing: a quote from run.log**', verdict: 'reject', missing: 'a quote from run.log' },
    { form: 'italic with underscores', text: '_VERDICT: accept_\nmissing: none', verdict: 'accept', missing: 'none' },
    { form: 'a trailing full stop on the word', text: 'VERDICT: reject.\nmissing: evidence', verdict: 'reject', missing: 'evidence' },
    { form: 'CRLF line endings', text: 'Looks fine.\r\nVERDICT: accept\r\nmissing:\r\n', verdict: 'accept', missing: '' },
    { form: 'a missing value keeping backticks and underscores', text: 'VERDICT: reject\nmissing: output of `npx vitest run tests/judge` saved to run_log.txt', verdict: 'reject', missing: 'output of `npx vitest run tests/judge` saved to run_log.txt' },
    { form: 'an earlier prose line mentioning missing:', text: 'missing: this is prose, not the answer\nVERDICT: reject\nmissing: the real list', verdict: 'reject', missing: 'the real list' },
  ];

  for (const { form, text, verdict, missing } of valid) {
    it(form, () => {
      expect(parseVerdict(text)).toEqual({ verdict, missing });
    });
  }
});

describe('parseVerdict rejects each malformed form with JudgeVerdictError', () => {
  const malformed: Array<{ form: string; text: string; message: RegExp }> = [
    { form: 'no VERDICT line', text: 'Everything looks good to me.\nmissing:', message: /no "VERDICT:" line/ },
    { form: 'an empty answer', text: '   \n\n', message: /no "VERDICT:" line/ },
    { form: 'two VERDICT lines', text: 'VERDICT: reject\nOn reflection:\nVERDICT: accept\nmissing:', message: /2 "VERDICT:" lines/ },
    { form: 'two VERDICT lines that agree', text: 'VERDICT: accept\nVERDICT: accept\nmissing:', message: /exactly one is allowed/ },
    { form: 'an unknown verdict word', text: 'VERDICT: maybe\nmissing: more tests', message: /is not "accept" or "reject"/ },
    { form: 'the template echoed literally', text: 'VERDICT: accept | reject\nmissing:', message: /is not "accept" or "reject"/ },
    { form: 'an empty verdict', text: 'VERDICT:\nmissing:', message: /is not "accept" or "reject"/ },
    { form: 'no missing line', text: 'All good.\nVERDICT: accept', message: /no "missing:" line/ },
    { form: 'the missing line before the VERDICT', text: 'missing: nothing\nVERDICT: accept', message: /no "missing:" line after its VERDICT/ },
    { form: 'text after the missing line', text: 'VERDICT: reject\nmissing: provenance\nLet me know if you need more.', message: /text after its "missing:" line/ },
    { form: 'a bullet list continuing the missing line', text: 'VERDICT: reject\nmissing:\n- the run log\n- the test name', message: /text after its "missing:" line/ },
    { form: 'a closing code fence after the pair', text: '```\nVERDICT: accept\nmissing:\n```', message: /text after its "missing:" line/ },
    { form: 'text between VERDICT and missing', text: 'VERDICT: reject\nbecause the log is absent\nmissing: the log', message: /must come right before the "missing:" line/ },
  ];

  for (const { form, text, message } of malformed) {
    it(form, () => {
      expect(() => parseVerdict(text)).toThrow(JudgeVerdictError);
      expect(() => parseVerdict(text)).toThrow(message);
    });
  }

  it('the error is a GroundswellError and keeps the judge’s whole answer', () => {
    const text = 'VERDICT: perhaps\nmissing:';
    let caught: unknown;
    try {
      parseVerdict(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GroundswellError);
    expect(caught).toBeInstanceOf(JudgeVerdictError);
    expect((caught as JudgeVerdictError).answer).toBe(text);
    expect((caught as JudgeVerdictError).name).toBe('JudgeVerdictError');
  });
});
