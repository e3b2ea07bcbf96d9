// The spec's section titles (specs/sections.yaml), so that every output names a section
// by its number and its title.
import { readFileSync } from 'node:fs';
import { parseSpecYaml } from './parsed-yaml.ts';

let titles: Record<string, string> | undefined;

/** Every section's title, by its number ('4.5', '6a'). */
export function sectionTitles(): Record<string, string> {
  titles ??= parseSpecYaml(readFileSync(new URL('./sections.yaml', import.meta.url), 'utf8')) as Record<string, string>;
  return titles;
}

/** `§4.5 Agent server`; the number alone for a section the file does not name. */
export function sectionLabel(section: string): string {
  const title = sectionTitles()[section];
  return title ? `§${section} ${title}` : `§${section}`;
}
