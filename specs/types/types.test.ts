// The generated types follow their documents: a change to specs/openapi without `npm run types`
// fails here, so the types the simulator and the suites compile against never drift.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { DOCUMENTS, generate, typesFile } from './generate.ts';

for (const name of DOCUMENTS) {
  test(`specs/types/${name}.ts is generated from specs/openapi/${name}.yaml`, async () => {
    expect(readFileSync(typesFile(name), 'utf8'), 'run npm run types').toBe(await generate(name));
  });
}
