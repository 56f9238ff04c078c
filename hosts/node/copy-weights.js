// Copies the embedding weights into gen/ when the package is packed (the
// `prepack` script, after jco transpiles the component there), so that
// semantic recall works as installed. The weights are not checked in:
// `python3 embed/scripts/derive.py` writes them to embed/weights/ (see
// docs/recall.md); AGENT_MEMORY_WEIGHTS_SOURCE takes them from elsewhere.
// Without them the package is packed without, and says so: it then looks
// at AGENT_MEMORY_WEIGHTS and the data directory, or reports recall off.

import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEIGHTS_FILE } from './semantic.js';

const here = dirname(fileURLToPath(import.meta.url));
const source = process.env.AGENT_MEMORY_WEIGHTS_SOURCE || join(here, '..', '..', 'embed', 'weights', WEIGHTS_FILE);
const target = join(here, 'gen', WEIGHTS_FILE);

if (existsSync(source) && statSync(source).isFile()) {
  copyFileSync(source, target);
  console.error(`packing the embedding weights: ${source} (${statSync(target).size} bytes)`);
} else {
  // A copy from an earlier pack must not ride along.
  rmSync(target, { force: true });
  console.error(
    `not packing the embedding weights: ${source} is missing (derive them with \`python3 embed/scripts/derive.py\`, ` +
      'see docs/recall.md); the package will look at AGENT_MEMORY_WEIGHTS and the data directory instead',
  );
}
