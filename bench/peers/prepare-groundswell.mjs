// Puts groundswell into node_modules/groundswell from a tarball packed from a commit of this
// repository (default HEAD; env GS_REF picks another), never from the working tree: the tarball is
// what `npm pack` makes (its prepack builds dist/) in a clean export of that commit, built with the
// repository's own installed tooling. The tarball is cached in vendor/ under the commit's id, and
// vendor/groundswell.json records the commit and the tarball's sha256. Env GS_TARBALL uses a given
// tarball instead. groundswell's own dependencies (@anthropic-ai/sdk, lru-cache) and the peers this
// bench needs (pg, @dbos-inc/dbos-sdk) are pinned in this folder's package.json.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const vendor = join(here, 'vendor');
mkdirSync(vendor, { recursive: true });

let tarball = process.env.GS_TARBALL ? resolve(process.env.GS_TARBALL) : undefined;
let commit = 'given tarball';
if (tarball === undefined) {
  commit = execFileSync('git', ['-C', repo, 'rev-parse', process.env.GS_REF ?? 'HEAD'], { encoding: 'utf8' }).trim();
  tarball = join(vendor, `groundswell-${commit.slice(0, 12)}.tgz`);
  if (!existsSync(tarball)) {
    if (!existsSync(join(repo, 'node_modules', 'tsup'))) throw new Error('run npm ci at the repository root first: the tarball is built with its tooling');
    const work = mkdtempSync(join(tmpdir(), 'gs-peers-pack-'));
    try {
      execFileSync('sh', ['-c', `git -C "${repo}" archive ${commit} | tar -x -C "${work}"`], { stdio: 'inherit' });
      symlinkSync(join(repo, 'node_modules'), join(work, 'node_modules'));
      const out = join(work, 'out');
      mkdirSync(out);
      execFileSync('npm', ['pack', '--loglevel=warn', '--pack-destination', out], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
      const [packed] = readdirSync(out);
      renameSync(join(out, packed), tarball);
      // Only the tarball of the commit measured last is kept.
      for (const old of readdirSync(vendor)) if (/^groundswell-[0-9a-f]{12}\.tgz$/.test(old) && join(vendor, old) !== tarball) rmSync(join(vendor, old));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
const sha256 = createHash('sha256').update(readFileSync(tarball)).digest('hex');
const target = join(here, 'node_modules', 'groundswell');
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
const version = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).version;
writeFileSync(join(vendor, 'groundswell.json'), `${JSON.stringify({ version, commit, tarball: tarball.startsWith(here) ? tarball.slice(here.length + 1) : tarball, sha256 }, null, 2)}\n`);
console.log(`groundswell ${version} from ${commit} (sha256 ${sha256.slice(0, 16)}...)`);
