import { test } from 'vitest';
import { parse } from '../index.js';
import { format } from '../../format/index.js';
import { tokenize } from '../../lexer/index.js';
import { assignNodeIds } from '../assign-node-ids.js';
import { LOAN_EXAMPLE_EN } from './fixtures/loan-example.js';
test('bench', () => {
  let src = LOAN_EXAMPLE_EN;
  let i = 0;
  while (src.split('\n').length < 200) {
    src += `\nRule extra${i} given applicant as Applicant, amount as Int, produce Decision:\n  If applicant.age is less than 18 or applicant.creditScore < 600:\n    Return Decision with approved set to false, reason set to "not eligible", rateBps set to 0, limits set to [].\n  Let rate be baseRate(applicant.creditScore) times 2 plus 3.\n  Match applicant.tier:\n    When Prime:\n      Let rate be rate minus 50.\n  Return Decision with approved set to true, reason set to "ok", rateBps set to rate, limits set to [amount].\n`;
    i++;
  }
  console.log('lines', src.split('\n').length, 'bytes', src.length);
  for (let k = 0; k < 300; k++) parse(src, 'en-US');
  const N = 1000;
  let t = performance.now();
  for (let k = 0; k < N; k++) parse(src, 'en-US');
  console.log('parse ms', (performance.now() - t) / N);
  const m = parse(src, 'en-US').module!;
  t = performance.now();
  for (let k = 0; k < N; k++) tokenize(src, 'en-US');
  console.log('tokenize ms', (performance.now() - t) / N);
  t = performance.now();
  for (let k = 0; k < N; k++) assignNodeIds(m);
  console.log('ids ms', (performance.now() - t) / N);

  t = performance.now();
  for (let k = 0; k < N; k++) format(m, 'de-DE');
  console.log('format ms', (performance.now() - t) / N);
  const zh = format(m, 'zh-CN');
  for (let k = 0; k < 300; k++) parse(zh, 'zh-CN');
  t = performance.now();
  for (let k = 0; k < N; k++) parse(zh, 'zh-CN');
  console.log('parse zh ms', (performance.now() - t) / N);
});
