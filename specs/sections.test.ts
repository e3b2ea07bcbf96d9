// Every section the catalogue cites has its title, so no report shows a bare number.
import { expect, test } from '@playwright/test';
import { contract } from './contract.ts';
import { sectionLabel, sectionTitles } from './sections.ts';

test('every section a rule cites has a title', () => {
  const cited = [...new Set(contract().rules.map((r) => r.section))];
  expect(cited.filter((section) => !sectionTitles()[section])).toEqual([]);
});

test('a section reads as its number and title', () => {
  expect(sectionLabel('4.5')).toBe('§4.5 Agent server');
  expect(sectionLabel('6a')).toBe('§6a Operation to event map');
  expect(sectionLabel('99')).toBe('§99');
});
