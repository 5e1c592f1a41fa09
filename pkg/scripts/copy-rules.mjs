// Run by `npm pack` and `npm publish` (prepack): the package's pages cite rules by id (E-62,
// P-15, ...), and the rule book that names them lives once, in the repository's docs/rules.md.
// Copying it to docs/rules.md here (ignored by git) ships it in the tarball, where the pages
// link it, without a second copy in the repository to drift.
import { copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
copyFileSync(join(PKG, '../docs/rules.md'), join(PKG, 'docs/rules.md'));
