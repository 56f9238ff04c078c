// Every shared conformance vector, one node:test test each.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCases, runCase } from './conformance.js';

const cases = loadCases();

test('the vectors are there', () => {
  // An emptied or unreadable vector directory must not pass by running nothing.
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
  const names = cases.map((c) => c.case.name);
  assert.equal(new Set(names).size, names.length, 'case names must be unique');
});

for (const { file, case: c } of cases) {
  test(`${file}::${c.name}`, () => runCase(c));
}
