// The tool's own name and version, as its package.json gives them: what --version prints, and what
// every report and HAR names as its creator. Found by the package's name, from the sources and from
// dist/ alike, so a version bump is made in package.json alone.
import { createRequire } from 'node:module';

const NAME = 'agent-platform-conformance';

export const TOOL: { name: string; version: string } = {
  name: NAME,
  version: (createRequire(import.meta.url)(`${NAME}/package.json`) as { version: string }).version,
};
