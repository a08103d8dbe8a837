// Bundles the web app (src/web) into dist/web: one script, one stylesheet, one page, nothing
// loaded from elsewhere at run time. Runs from `npm install` (prepare) and `npm run build:web`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');

export async function buildWeb(outDir = path.join(ROOT, 'dist', 'web')): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(ROOT, 'src', 'web', 'main.ts')],
    outfile: path.join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'app.css']) copyFileSync(path.join(ROOT, 'src', 'web', file), path.join(outDir, file));
  return outDir;
}

if (require.main === module) {
  buildWeb().then(
    (dir) => console.log(`web app: ${path.relative(process.cwd(), dir) || dir}`),
    (err: unknown) => {
      console.error((err as Error).message);
      process.exit(1);
    },
  );
}
